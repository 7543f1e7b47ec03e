/** The data table the pages list records in: a caption, one header row of column names, the rows. */
import type { ReactNode } from 'react';

/** A column whose header is read by screen readers only (a row's buttons). */
export const ROW_ACTIONS = Symbol('actions');

/** `columns`: the header names in order; `false` leaves a column out (e.g. `canEdit && 'Change'`). */
export function RecordTable({
  caption,
  columns,
  testId,
  children,
}: {
  caption: ReactNode;
  columns: readonly (string | typeof ROW_ACTIONS | false)[];
  testId?: string;
  children: ReactNode;
}) {
  return (
    <table className="grid" data-testid={testId}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c, i) =>
            c === false ? null : c === ROW_ACTIONS ? (
              <th scope="col" key={i}>
                <span className="visually-hidden">Actions</span>
              </th>
            ) : (
              <th scope="col" key={i}>
                {c}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
