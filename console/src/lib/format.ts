/** Small wording helpers shared by the pages: counts read as English ("1 command", "3 commands"). */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export const errorOf = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

/** "The last command" for one, "The last 3 commands" for more (`first` for the word before). */
export const theLast = (n: number, one: string, many = `${one}s`, first = 'The last') => (n === 1 ? `${first} ${one}` : `${first} ${plural(n, one, many)}`);
