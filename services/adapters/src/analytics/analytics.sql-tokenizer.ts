/**
 * Statement splitting for analytics migration files: a small SQL tokenizer that knows quotes,
 * backticks and comments, so the migration runner can send one statement at a time.
 */

/**
 * Splits a migration file into statements at `;` that ends a line (trailing blanks or a `--`
 * comment may follow). Semicolons inside quotes, backticks and comments, or mid-line, do not
 * split. Fragments that hold only comments/whitespace are dropped.
 */
export function splitSqlStatements(sql: string): string[] {
  const out: string[] = [];
  const n = sql.length;
  let start = 0;
  let hasCode = false;
  let i = 0;

  const restOfLineIsBlank = (from: number): boolean => {
    let j = from;
    while (j < n && (sql[j] === ' ' || sql[j] === '\t' || sql[j] === '\r')) j++;
    return j >= n || sql[j] === '\n' || (sql[j] === '-' && sql[j + 1] === '-');
  };
  const flush = (end: number) => {
    if (hasCode) out.push(sql.slice(start, end).trim());
    hasCode = false;
  };

  while (i < n) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      hasCode = true;
      let j = i + 1;
      while (j < n) {
        if (sql[j] === '\\') j += 2;
        else if (sql[j] === c) {
          if (sql[j + 1] === c)
            j += 2; // doubled quote
          else break;
        } else j++;
      }
      i = j + 1;
      continue;
    }
    if (c === ';' && restOfLineIsBlank(i + 1)) {
      flush(i);
      start = i + 1;
      i++;
      continue;
    }
    if (c !== undefined && !/\s/.test(c)) hasCode = true;
    i++;
  }
  flush(n);
  return out;
}
