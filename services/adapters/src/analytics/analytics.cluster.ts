/**
 * The cluster rendering of the analytics DDL: the numbered migrations are written for one node
 * (MergeTree engines, no ON CLUSTER), which is also what chDB and ClickHouse Cloud take. For a
 * self-managed cluster (one shard, several replicas, Keeper) every schema statement must reach
 * every node and every table must be replicated, so each statement is rendered:
 * - `CREATE TABLE`, `CREATE [MATERIALIZED] VIEW`, `ALTER TABLE`, `DROP TABLE|VIEW`,
 *   `TRUNCATE TABLE` get `ON CLUSTER <name>` after the object's name, `RENAME TABLE` at its end;
 * - every MergeTree-family engine becomes its Replicated form with a Keeper path of its own table
 *   and the `{replica}` macro, e.g. `ReplacingMergeTree(version)` →
 *   `ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/t', '{replica}', version)`;
 * - `CREATE TABLE b AS a` (which would copy a's engine, Keeper path included) gets a's engine
 *   clause rendered with b's own path, so the renderer must see every statement in order;
 * - `non_replicated_deduplication_window` (insert deduplication of plain MergeTree) becomes
 *   `replicated_deduplication_window`.
 * Everything else (INSERT ... SELECT backfills, OPTIMIZE, SELECT) is left alone: a replicated table
 * replicates inserted blocks and merges itself.
 */

export interface ClusterRendering {
  /** The cluster's name as the servers' `remote_servers` declare it (e.g. `pylon`, or `default` on ClickHouse Cloud). */
  cluster: string;
  /** Keeper path of a table; `{table}` is replaced by the table's name here, other macros are the server's. */
  zooKeeperPath?: string;
  /** Replica name (a server macro). */
  replica?: string;
}

export const DEFAULT_ZOOKEEPER_PATH = '/clickhouse/tables/{shard}/{database}/{table}';
export const DEFAULT_REPLICA = '{replica}';

const NAME = String.raw`(?:\x60[^\x60]+\x60|[A-Za-z_][\w]*)(?:\.(?:\x60[^\x60]+\x60|[A-Za-z_][\w]*))?`;
const CLUSTER_NAME = /^[A-Za-z_][\w-]*$/;

/** Statement heads that take ON CLUSTER right after the object's name (group 1 ends at the name). */
const AFTER_NAME = [
  new RegExp(String.raw`^(\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(${NAME}))`, 'i'),
  new RegExp(String.raw`^(\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:MATERIALIZED\s+)?VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?(${NAME}))`, 'i'),
  new RegExp(String.raw`^(\s*ALTER\s+TABLE\s+(${NAME}))`, 'i'),
  new RegExp(String.raw`^(\s*DROP\s+(?:TABLE|VIEW)\s+(?:IF\s+EXISTS\s+)?(${NAME}))`, 'i'),
  new RegExp(String.raw`^(\s*TRUNCATE\s+(?:TABLE\s+)?(?:IF\s+EXISTS\s+)?(${NAME}))`, 'i'),
];
const RENAME = /^\s*RENAME\s+TABLE\s/i;
const ENGINE = /\bENGINE\s*=\s*(\w*)MergeTree\b(?:\s*\(([^)]*)\))?/i;
const CREATE_AS = new RegExp(String.raw`\s+AS\s+(${NAME})\s*$`, 'i');

const unquote = (name: string) => name.replace(/\x60/g, '').replace(/^.*\./, '');
const sqlString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Comments blanked out (same length), so a keyword in a comment is never matched. */
const codeOnly = (statement: string) => statement.replace(/--[^\n]*/g, (m) => ' '.repeat(m.length));

/**
 * A renderer for one pass over the statements in order (it remembers each table's engine for the
 * `CREATE TABLE b AS a` that follow). Throws on a statement it cannot render (a copy of a table it
 * has not seen), rather than send one that would share another table's Keeper path.
 */
export function clusterRenderer(o: ClusterRendering): (statement: string) => string {
  if (!CLUSTER_NAME.test(o.cluster)) throw new Error(`analytics cluster name '${o.cluster}' is not a plain identifier`);
  const path = o.zooKeeperPath ?? DEFAULT_ZOOKEEPER_PATH;
  const replica = o.replica ?? DEFAULT_REPLICA;
  /** Each table's engine clause as written (single-node form), from `ENGINE` to the statement's end. */
  const engines = new Map<string, string>();
  const replicated = (table: string, family: string, args: string | undefined, rest: string) => {
    const params = [sqlString(path.replace(/\{table\}/g, table)), sqlString(replica), ...(args?.trim() ? [args.trim()] : [])];
    return `ENGINE = Replicated${family}MergeTree(${params.join(', ')})${rest}`;
  };
  const renderEngine = (table: string, clause: string) => {
    const m = ENGINE.exec(codeOnly(clause));
    if (!m) return clause;
    return clause.slice(0, m.index) + replicated(table, m[1] ?? '', m[2], '') + clause.slice(m.index + m[0].length);
  };
  return (statement) => {
    let s = statement.replace(/\bnon_replicated_deduplication_window\b/g, 'replicated_deduplication_window');
    const code = codeOnly(s);
    if (RENAME.test(code)) return `${s.replace(/\s+$/, '')} ON CLUSTER ${o.cluster}`;
    for (const head of AFTER_NAME) {
      const m = head.exec(code);
      if (!m?.[1] || !m[2]) continue;
      const at = m[1].length;
      const table = unquote(m[2]);
      let tail = s.slice(at);
      if (/^\s*CREATE\s+TABLE/i.test(code)) {
        const engine = ENGINE.exec(codeOnly(tail));
        if (engine) {
          const clause = tail.slice(engine.index);
          engines.set(table, clause);
          tail = tail.slice(0, engine.index) + renderEngine(table, clause);
        } else {
          const copy = CREATE_AS.exec(codeOnly(tail));
          if (copy?.[1]) {
            const source = engines.get(unquote(copy[1]));
            if (source === undefined) throw new Error(`cannot render '${table}' for a cluster: the engine of '${unquote(copy[1])}' it copies was not seen`);
            engines.set(table, source);
            tail = `${tail.replace(/\s+$/, '')} ${renderEngine(table, source)}`;
          }
        }
      }
      s = `${s.slice(0, at)} ON CLUSTER ${o.cluster}${tail}`;
      return s;
    }
    return s;
  };
}
