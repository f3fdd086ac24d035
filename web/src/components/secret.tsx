/**
 * A secret the service shows once (a new API key, a webhook's signing secret): in a `.secret` box
 * with a Copy button and a sentence saying it will not be shown again. It lives only in the
 * page's memory: never in the address or in storage, and gone once the person dismisses it.
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';

export function SecretOnce(props: {
  /** What the secret is, e.g. "New API key". */
  title: string;
  value: string;
  /** Why it matters and what to do with it, after the "shown once" sentence. */
  children?: ComponentChildren;
  onDismiss: () => void;
}) {
  const box = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<string>('');

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('Copied to the clipboard.');
    } catch {
      // No clipboard (an insecure origin, a refused permission): select it for Ctrl+C instead.
      const selection = window.getSelection();
      if (box.current !== null && selection !== null) {
        selection.selectAllChildren(box.current);
      }
      setCopied('Could not copy: the text is selected, copy it with Ctrl+C.');
    }
  };

  return (
    <section class="secret-once notice ok" aria-labelledby="secret-title">
      <h2 id="secret-title">{props.title}</h2>
      <p>
        <strong>It is shown once:</strong> copy it now, this page cannot show it again.
      </p>
      <div class="secret-row">
        <code class="secret" ref={box}>
          {props.value}
        </code>
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p class="small" role="status">
        {copied}
      </p>
      {props.children}
      <button type="button" onClick={props.onDismiss}>
        Done, hide it
      </button>
    </section>
  );
}
