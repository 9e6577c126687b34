import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads `load()` now, whenever `deps` change, and every `pollMs` while `keepPolling(data)` holds. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], pollMs = 0, keepPolling: (data: T) => boolean = () => true): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  const latest = useRef(load);
  latest.current = load;

  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const value = await latest.current();
        if (!alive) return;
        setData(value);
        setError(undefined);
        if (pollMs && keepPolling(value)) timer = setTimeout(run, pollMs);
      } catch (err) {
        if (!alive) return;
        setError(err instanceof Error ? err.message : String(err));
        if (pollMs) timer = setTimeout(run, pollMs * 2);
      } finally {
        if (alive) setLoading(false);
      }
    };
    setLoading(true);
    void run();
    return () => {
      alive = false;
      if (timer) clearTimeout(timer);
    };
  }, [...deps, tick]);
  return { data, error, loading, reload };
}

/** Runs an action, keeping its busy state and error message for the form that started it. */
export function useAction(): { busy: boolean; error: string | undefined; run: (fn: () => Promise<void>) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
