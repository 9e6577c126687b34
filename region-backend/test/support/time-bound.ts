/**
 * Time bounds for property-based tests of parsers of untrusted input: each generated case must finish
 * within `ms`. A synchronous parser is timed (a super-linear one fails on the measured time); an
 * asynchronous one is also raced against a timer, so a case that never settles fails instead of hanging.
 */
export const CASE_MS = 1_000;

export function withinSync<T>(fn: () => T, ms = CASE_MS, what = 'parser'): T {
  const started = performance.now();
  const check = () => {
    const took = performance.now() - started;
    if (took > ms) throw new Error(`${what} took ${Math.round(took)} ms on one case (bound ${ms} ms)`);
  };
  let result: T;
  try {
    result = fn();
  } catch (err) {
    check();
    throw err;
  }
  check();
  return result;
}

export async function within<T>(work: Promise<T>, ms = CASE_MS, what = 'parser'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms on one case`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
