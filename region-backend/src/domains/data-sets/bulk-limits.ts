/**
 * Bounds on uploaded bulk files (CSV and JSON lines, plain, gzip or .tar.gz), checked while streaming so a
 * file over a bound is refused (400/5001) before it costs more than the bound, and nothing is stored.
 */
export const BULK_LIMITS = {
  /** Most bytes a gzip upload may inflate to (the upload itself is under 50 MB). */
  maxInflatedBytes: 256 * 1024 * 1024,
  /** Most inflated bytes per compressed byte, once past `ratioFloorBytes` (a bomb inflates 1000:1). */
  maxInflateRatio: 100,
  ratioFloorBytes: 8 * 1024 * 1024,
  /** Longest CSV record and longest JSON line, in characters / bytes. */
  maxRecordChars: 64 * 1024,
  maxLineBytes: 64 * 1024,
  /** Most rows (records or lines) in one file. */
  maxRows: 1_000_000,
} as const;

/** The inflated-size cap of a gzip upload of `compressedBytes`. */
export function inflatedLimit(compressedBytes: number): number {
  return Math.min(BULK_LIMITS.maxInflatedBytes, Math.max(BULK_LIMITS.ratioFloorBytes, compressedBytes * BULK_LIMITS.maxInflateRatio));
}
