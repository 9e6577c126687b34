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

/** Seconds as the string form used by detect/classify/search timing fields, e.g. "0.123". */
export function secondsText(ms: number): string {
  return (ms / 1000).toFixed(3);
}
