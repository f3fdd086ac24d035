/**
 * Loads what a page shows, again every `pollMs` while the tab is visible (live status without a
 * push channel), and on `reload()` after the page changed something. A poll that fails keeps the
 * last data and shows the error; the next one that succeeds clears it.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Resource<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  reload(): void;
}

export function useResource<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
  options: { readonly pollMs?: number; readonly while?: (data: T) => boolean } = {},
): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const keepPolling = useRef(options.while);
  keepPolling.current = options.while;

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const next = await loadRef.current();
        if (!live) {
          return;
        }
        setData(next);
        setError(undefined);
        if (options.pollMs !== undefined && (keepPolling.current?.(next) ?? true)) {
          timer = setTimeout(poll, options.pollMs);
        }
      } catch (failure) {
        if (!live) {
          return;
        }
        setError(failure);
        if (options.pollMs !== undefined) {
          timer = setTimeout(poll, options.pollMs * 2);
        }
      } finally {
        if (live) {
          setLoading(false);
        }
      }
    };
    const poll = () => {
      if (document.hidden) {
        timer = setTimeout(poll, options.pollMs ?? 1000);
        return;
      }
      void run();
    };
    setLoading(true);
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [...deps, generation, options.pollMs]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data, error, loading, reload };
}
