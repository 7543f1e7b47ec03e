/**
 * One write at a time from a page: busy while it runs, its error kept for the page to show. A
 * mutation payload answering success: false becomes that error, naming the field it refused.
 */
import { useCallback, useState, type FormEvent } from 'react';
import { errorOf } from './format';

export interface Payload {
  success: boolean;
  error?: string | null;
  errorField?: string | null;
}

/** Throws the payload's error when a mutation answered success: false (or nothing); else returns it. */
export function accepted<P extends Payload>(p: P | null | undefined, what = 'the change'): P {
  if (!p?.success) throw new Error(`${p?.error ?? `${what} was refused`}${p?.errorField ? ` (${p.errorField})` : ''}`);
  return p;
}

/** A form's onSubmit that calls `f` instead of the browser's submit (for a form that keeps its own busy and error state). */
export const handleSubmit =
  (f: () => unknown) =>
  (e: FormEvent): void => {
    e.preventDefault();
    void f();
  };

export interface Action {
  busy: boolean;
  error: Error | undefined;
  /** Runs `f`: true when it finished, false when it threw (the error is kept). */
  run: (f: () => Promise<unknown>) => Promise<boolean>;
  /** A form's onSubmit that runs `f` instead of the browser's submit. */
  submit: (f: () => Promise<unknown>) => (e?: FormEvent) => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const run = useCallback(async (f: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await f();
      return true;
    } catch (e) {
      setError(errorOf(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const submit = useCallback(
    (f: () => Promise<unknown>) => (e?: FormEvent) => {
      e?.preventDefault();
      void run(f);
    },
    [run],
  );
  return { busy, error, run, submit };
}
