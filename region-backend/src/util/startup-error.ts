/**
 * A start-up failure the operator can fix: its message is one line naming the cause and the fix, printed
 * without a stack trace (`npm start`, the backend's `server.ts`).
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** One line for any start-up failure: a StartupError's own message, otherwise the error's first line. */
export function startupMessage(err: unknown): string {
  if (err instanceof StartupError) return err.message;
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n').find((line) => line.trim() !== '') ?? 'unknown error').trim();
}

/** The code of a Node system error (EADDRINUSE, ECONNREFUSED, ...), looking through AggregateError. */
export function errorCode(err: unknown): string | undefined {
  if (err && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const inner = (err as { errors?: unknown[] }).errors;
    if (Array.isArray(inner)) for (const e of inner) if (errorCode(e)) return errorCode(e);
  }
  return undefined;
}
