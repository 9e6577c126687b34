/**
 * A seam for D1 read replication in tests (local D1 has no replicas). Both bindings are real local D1
 * databases: `recordingD1` passes every session through to the primary and records how each was opened;
 * `laggingD1` adds a replica (a second D1 database holding what has been copied into it with `replicate`)
 * that serves the reads of `first-unconstrained` sessions until the session writes, as a replica that has
 * not yet seen the latest writes would. Sessions opened at a bookmark or `first-primary` read the primary:
 * a replica answers a bookmark session only once it has caught up to the bookmark.
 */
export interface SessionLog {
  /** The constraint or bookmark of every session opened, in order. */
  opened: string[];
  /** The bookmark of every session after its latest statement, as `getBookmark()` returned it. */
  bookmarks: string[];
}

export function newSessionLog(): SessionLog {
  return { opened: [], bookmarks: [] };
}

function recordedSession(session: D1DatabaseSession, log: SessionLog): D1DatabaseSession {
  return {
    prepare: (query: string) => session.prepare(query),
    batch: <T>(statements: D1PreparedStatement[]) => session.batch<T>(statements),
    getBookmark: () => {
      const bookmark = session.getBookmark();
      if (bookmark) log.bookmarks.push(bookmark);
      return bookmark;
    },
  } as D1DatabaseSession;
}

function binding(primary: D1Database, withSession: (start: string) => D1DatabaseSession): D1Database {
  return {
    prepare: (query: string) => primary.prepare(query),
    batch: <T>(statements: D1PreparedStatement[]) => primary.batch<T>(statements),
    exec: (query: string) => primary.exec(query),
    withSession: (start = 'first-unconstrained') => withSession(start),
  } as D1Database;
}

export function recordingD1(primary: D1Database, log: SessionLog): D1Database {
  return binding(primary, (start) => {
    log.opened.push(start);
    return recordedSession(primary.withSession(start), log);
  });
}

const WRITE = /^\s*(insert|update|delete|replace)\b/i;

/** A statement bound later to whichever database the session reads or writes at the time it runs. */
class RoutedStatement {
  constructor(
    readonly session: LaggingSession,
    readonly query: string,
    readonly values: unknown[] = [],
  ) {}

  bind(...values: unknown[]): RoutedStatement {
    return new RoutedStatement(this.session, this.query, values);
  }

  on(db: D1DatabaseSession): D1PreparedStatement {
    return db.prepare(this.query).bind(...this.values);
  }

  first(column?: string) {
    const statement = this.session.target([this]).prepare(this.query).bind(...this.values);
    return column === undefined ? statement.first() : statement.first(column);
  }
  all() {
    return this.session.target([this]).prepare(this.query).bind(...this.values).all();
  }
  run() {
    return this.session.target([this]).prepare(this.query).bind(...this.values).run();
  }
  raw(options?: { columnNames?: boolean }) {
    const statement = this.session.target([this]).prepare(this.query).bind(...this.values);
    return options?.columnNames ? statement.raw({ columnNames: true }) : statement.raw();
  }
}

class LaggingSession {
  #caughtUp = false;
  readonly #replica: D1DatabaseSession;
  readonly #primary: D1DatabaseSession;

  constructor(primary: D1Database, replica: D1Database) {
    this.#primary = primary.withSession('first-primary');
    this.#replica = replica.withSession('first-unconstrained');
  }

  /** Reads go to the replica until the session writes; from then on the session reads its own writes. */
  target(statements: RoutedStatement[]): D1DatabaseSession {
    if (statements.some((s) => WRITE.test(s.query))) this.#caughtUp = true;
    return this.#caughtUp ? this.#primary : this.#replica;
  }

  prepare(query: string) {
    return new RoutedStatement(this, query);
  }

  batch<T>(statements: RoutedStatement[]) {
    const db = this.target(statements);
    return db.batch<T>(statements.map((s) => s.on(db)));
  }

  getBookmark() {
    return this.#caughtUp ? this.#primary.getBookmark() : null;
  }
}

export function laggingD1(primary: D1Database, replica: D1Database, log: SessionLog): D1Database {
  return binding(primary, (start) => {
    log.opened.push(start);
    if (start !== 'first-unconstrained') return recordedSession(primary.withSession(start), log);
    return recordedSession(new LaggingSession(primary, replica) as unknown as D1DatabaseSession, log);
  });
}

/** The replica catches up on `tables`: it now holds exactly the primary's rows of them. */
export async function replicate(primary: D1Database, replica: D1Database, tables: string[]): Promise<void> {
  for (const table of tables) {
    const { results } = await primary.prepare(`SELECT * FROM ${table}`).all<Record<string, unknown>>();
    const statements = [replica.prepare(`DELETE FROM ${table}`)];
    for (const row of results) {
      const columns = Object.keys(row);
      statements.push(replica.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).bind(...columns.map((c) => row[c])));
    }
    await replica.batch(statements);
  }
}
