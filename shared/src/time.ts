/** The specification's timestamp format: `%Y-%m-%dT%H:%M:%SZ`, UTC, second precision. */
export function formatTime(value: Date | number | string): string {
  const date = value instanceof Date ? value : new Date(value);
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function formatTimeOrNull(value: Date | number | string | null | undefined): string | null {
  return value === null || value === undefined ? null : formatTime(value);
}

const TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** Parses `%Y-%m-%dT%H:%M:%SZ`; returns null for anything else (including impossible dates). */
export function parseTime(text: string): Date | null {
  const match = TIME_PATTERN.exec(text.trim());
  if (!match) return null;
  const date = new Date(text.trim());
  if (Number.isNaN(date.getTime()) || formatTime(date) !== text.trim()) return null;
  return date;
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A time bound as clients send it: `%Y-%m-%dT%H:%M:%SZ`, or a date alone (`2017-12-01`, a client's own
 * example), which means its midnight UTC. Null for anything else, including impossible dates.
 */
export function parseTimeOrDate(text: string): Date | null {
  const trimmed = text.trim();
  if (trimmed.length > 20) return null;
  if (!DATE_PATTERN.test(trimmed)) return parseTime(trimmed);
  return parseTime(`${trimmed}T00:00:00Z`);
}

/** Seconds as the string form used by detect/classify/search timing fields, e.g. "0.123". */
export function secondsText(ms: number): string {
  return (ms / 1000).toFixed(3);
}
