/**
 * The D1 session of one public API call (docs/edge.md, "Read-your-writes"). D1's Sessions API may serve a
 * read from a replica that lags the primary; a session opened with a bookmark reads at least that state.
 * The session is opened on first use (a warm call served from the isolate cache makes no D1 round trip and
 * builds nothing), at the constraint the call has settled by then:
 *
 * - `first-unconstrained` by default (a nearby replica may answer);
 * - the caller's latest write bookmark once the caller is known (`follow`), so that its own writes are seen;
 * - `first-primary` when a read that may come from a lagging replica found nothing (`retryOnPrimary`).
 *
 * Raising the constraint of an open session reopens it: later statements run in the new session.
 */
import { drizzle } from 'drizzle-orm/d1';
import type { D1Counter, Database } from './database.js';
import * as schema from './schema.js';

export type SessionStart = D1SessionConstraint | D1SessionBookmark;

/** The later of two D1 bookmarks (bookmarks sort lexicographically, oldest first). */
export function laterBookmark(a: string | null | undefined, b: string | null | undefined): string | undefined {
  if (!a) return b ?? undefined;
  if (!b) return a;
  return a >= b ? a : b;
}

const unwrapped = new WeakMap<object, D1PreparedStatement>();

function countedStatement(statement: D1PreparedStatement, counter: D1Counter): D1PreparedStatement {
  const proxy = new Proxy(statement, {
    get(target, prop) {
      if (prop === 'bind') return (...values: unknown[]) => countedStatement(target.bind(...values), counter);
      if (prop === 'first' || prop === 'all' || prop === 'run' || prop === 'raw') {
        return (...args: unknown[]) => {
          counter.roundTrips++;
          return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  unwrapped.set(proxy, statement);
  return proxy;
}

export class CallSession {
  #start: SessionStart = 'first-unconstrained';
  #session: D1DatabaseSession | undefined;
  #db: Database | undefined;
  #ownWrite = false;
  /** The position reached by sessions this call has left behind (a reopened session starts without one). */
  #reached: string | undefined;

  constructor(
    private readonly d1: D1Database,
    readonly counter: D1Counter,
  ) {}

  /** The call's drizzle database; statements run in whichever session is current when they run. */
  get db(): Database {
    this.#db ??= drizzle(this.#client(), { schema }) as Database;
    return this.#db;
  }

  /** The latest bookmark the call's statements reached (null before any). */
  bookmark(): string | null {
    return laterBookmark(this.#reached, this.#session?.getBookmark()) ?? null;
  }

  /** Reads from here on see at least `bookmark` (and whatever the call has already seen). */
  follow(bookmark: string | undefined): void {
    if (!bookmark || this.#start === 'first-primary') return;
    const current = this.bookmark() ?? (this.#start === 'first-unconstrained' ? undefined : this.#start);
    const target = laterBookmark(current, bookmark)!;
    if (target === current) return;
    this.#reopen(target);
  }

  /**
   * Reads once; when the answer is not `settled` and may have come from a replica that has not yet seen a
   * write made elsewhere (another isolate, the admin API), reads again on the primary. Only a row the
   * caller cannot use yet (absent, pending) costs the second read.
   */
  async retryOnPrimary<T>(read: () => Promise<T>, settled: (value: T) => boolean): Promise<T> {
    const first = await read();
    if (settled(first) || this.#start === 'first-primary') return first;
    this.#reopen('first-primary');
    return read();
  }

  /** The call changed the caller's own state (the registry): its bookmark is kept for the caller's next calls. */
  markOwnWrite(): void {
    this.#ownWrite = true;
  }

  get ownWrite(): boolean {
    return this.#ownWrite;
  }

  #reopen(start: SessionStart): void {
    this.#reached = this.bookmark() ?? undefined;
    this.#start = start;
    this.#session = undefined;
  }

  #current(): D1DatabaseSession {
    if (!this.#session) {
      this.#session = typeof this.d1.withSession === 'function' ? this.d1.withSession(this.#start) : (this.d1 as unknown as D1DatabaseSession);
    }
    return this.#session;
  }

  /** A stable client for drizzle that counts round trips and sends each statement to the current session. */
  #client(): D1Database {
    return {
      prepare: (query: string) => countedStatement(this.#current().prepare(query), this.counter),
      batch: <T>(statements: D1PreparedStatement[]) => {
        this.counter.roundTrips++;
        return this.#current().batch<T>(statements.map((s) => unwrapped.get(s) ?? s));
      },
      getBookmark: () => this.bookmark(),
    } as unknown as D1Database;
  }
}
