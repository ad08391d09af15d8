/*
 * Statement cache: one prepared statement per SQL text for a journal connection.
 * Owns: memoizing `db.prepare` (the visible seat's delivery path prepares the same few statements for every brief;
 *   compiling them again each time was a third of its journal cost).
 * Does not own: the SQL (journal.ts, schema.ts) or the connection (schema.ts).
 * Invariant: a cached statement comes back in its default mode (pluck, raw and expand off), so a call site that
 *   sets a mode never changes what another call site with the same SQL gets; the cache is bounded.
 */
import type Database from "better-sqlite3";

/** Most distinct SQL texts kept; past it the cache starts over (the journal has a few dozen). */
const MAX_STATEMENTS = 256;

/**
 * Makes `db.prepare` return one cached statement per SQL text, reset to its default mode; returns `db`.
 * @internal better-sqlite3's types are a devDependency: stripped from the published .d.ts.
 */
export function cacheStatements(db: Database.Database): Database.Database {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  const cached = ((sql: string) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      if (cache.size >= MAX_STATEMENTS) cache.clear();
      statement = prepare(sql);
      cache.set(sql, statement);
    } else if (statement.reader) {
      statement.pluck(false).raw(false).expand(false);
    }
    return statement;
  }) as Database.Database["prepare"];
  db.prepare = cached;
  return db;
}
