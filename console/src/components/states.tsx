/** The loading, empty and error states every page uses: each says what happens or what to do next. */
import type { ReactNode } from 'react';

export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

/** `title`: what failed, for a write ("Could not import this address."); a read's by default. */
export function ErrorState({ error, retry, title = 'Could not load this.' }: { error: Error; retry?: () => void; title?: string }) {
  return (
    <div className="state state-error" role="alert">
      <p>
        <strong>{title}</strong> {error.message}
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

/** What Async shows: a useQuery answer. */
interface Query<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** Renders `children(data)` once loaded; the matching state before that. */
export function Async<T>(props: { q: Query<T>; what: string; children: (data: T) => ReactNode }) {
  const { q, what, children } = props;
  if (q.error) return <ErrorState error={q.error} retry={q.reload} />;
  if (q.data === undefined) return <Loading what={what} />;
  return <>{children(q.data)}</>;
}

/** Async for a list: `children(items, data)` when the list `of(data)` has items; else Empty titled `empty`, with the `hint`. */
export function AsyncList<T, I>(props: {
  q: Query<T>;
  what: string;
  of: (data: T) => readonly I[] | null | undefined;
  empty: string;
  hint?: ReactNode;
  children: (items: readonly I[], data: T) => ReactNode;
}) {
  const { of, empty, hint, children, ...rest } = props;
  return (
    <Async {...rest}>
      {(data) => {
        const items = of(data);
        return items?.length ? children(items, data) : <Empty title={empty}>{hint && <p>{hint}</p>}</Empty>;
      }}
    </Async>
  );
}
