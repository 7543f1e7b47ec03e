/** Short words shown as chips (a screen's tags, a user's roles), side by side. */
export function Chips({ items }: { items: readonly string[] }) {
  return (
    <>
      {items.map((t) => (
        <span className="tag" key={t}>
          {t}
        </span>
      ))}
    </>
  );
}
