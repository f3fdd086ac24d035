/**
 * A button that asks before it acts: it opens a modal <dialog> (focus moves into it, Escape
 * cancels) with the question, any extra fields, and the confirming button. The action's failure
 * is shown in the dialog, which stays open so the person can retry or cancel.
 */
import type { ComponentChildren } from 'preact';
import { useId, useRef, useState } from 'preact/hooks';
import { ErrorNotice } from './ui.js';

export function ConfirmButton(props: {
  /** The button's text, e.g. "Delete". */
  label: string;
  /** An accessible name when the label alone is ambiguous in a list, e.g. "Revoke ci key". */
  ariaLabel?: string;
  title: string;
  children: ComponentChildren;
  /** The confirming button's text, e.g. "Delete webhook". */
  confirmLabel: string;
  danger?: boolean;
  disabled?: boolean;
  /** Runs on confirmation; a rejection keeps the dialog open with its error. */
  onConfirm: () => Promise<void>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const open = () => {
    setError(undefined);
    dialog.current?.showModal();
  };
  const confirm = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
      dialog.current?.close();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button
        type="button"
        class={props.danger === true ? 'danger' : ''}
        aria-label={props.ariaLabel}
        disabled={props.disabled}
        onClick={open}
      >
        {props.label}
      </button>
      <dialog ref={dialog} class="confirm" aria-labelledby={titleId}>
        <form method="dialog" onSubmit={confirm}>
          <h2 id={titleId}>{props.title}</h2>
          {props.children}
          <ErrorNotice error={error} />
          <div class="actions">
            <button
              type="submit"
              class={props.danger === true ? 'danger' : 'primary'}
              disabled={busy}
            >
              {props.confirmLabel}
            </button>
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
