/** The day range of a usage query (`from`, `to`): real UTC days, in order, at most USAGE_MAX_DAYS in all. */
import { ApiError, USAGE_MAX_DAYS } from '@iris/shared';
import { utcDay } from './usage-meter.js';

const DAY_MS = 86_400_000;
/** The range when `from` is not given: 30 days ending with `to`. */
const DEFAULT_DAYS = 30;

function parseDay(name: string, raw: string): number {
  const match = raw.length === 10 ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw) : null;
  const at = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
  // Date.UTC rolls over (2025-02-30 is 2025-03-02): the day must read back as written.
  if (!match || Number.isNaN(at) || utcDay(new Date(at)) !== raw || Number(match[1]) < 2000) {
    throw new ApiError('invalidData', `${name} must be a day as YYYY-MM-DD (from 2000-01-01)`);
  }
  return at;
}

export function parseUsageRange(query: { from?: string | undefined; to?: string | undefined }, today: Date = new Date()): { from: string; to: string } {
  const to = query.to === undefined ? Date.parse(utcDay(today)) : parseDay('to', query.to);
  const from = query.from === undefined ? to - (DEFAULT_DAYS - 1) * DAY_MS : parseDay('from', query.from);
  if (from > to) throw new ApiError('invalidData', 'from must not be after to');
  if ((to - from) / DAY_MS + 1 > USAGE_MAX_DAYS) throw new ApiError('invalidData', `a usage range covers at most ${USAGE_MAX_DAYS} days`);
  return { from: utcDay(new Date(from)), to: utcDay(new Date(to)) };
}
