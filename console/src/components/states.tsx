/** The loading, empty and error states every page uses: each says what happens or what to do next. */
import type { ReactNode } from 'react';

export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function ErrorState({ error, retry }: { error: Error; retry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <p>
        <strong>Could not load this.</strong> {error.message}
      </p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}

/** Renders `children(data)` once loaded; the matching state before that. */
export function Async<T>(props: {
  q: { data: T | undefined; error: Error | undefined; loading: boolean; reload: () => void };
  what: string;
  children: (data: T) => ReactNode;
}) {
  const { q, what, children } = props;
  if (q.error) return <ErrorState error={q.error} retry={q.reload} />;
  if (q.data === undefined) return <Loading what={what} />;
  return <>{children(q.data)}</>;
}
