/** Limits from the specification's Limits table, plus the platform's own documented defaults. */
export const LIMITS = {
  setNameChars: 16,
  setDescriptionChars: 128,
  productServiceNameChars: 32,
  urlChars: 512,
  metaChars: 512,
  /** Uploaded files must be *under* 50 MB. */
  uploadBytes: 50 * 1024 * 1024,
  countDefault: 20,
  imagesPerLabel: 50,
  batchMinDistinctUrls: 2,
  /** Longest accepted JSON / form body that is not a file upload. */
  plainBodyBytes: 1024 * 1024,
} as const;

/** Default per-account quotas; the specification leaves the numbers open, operators change them per account. */
export const DEFAULT_QUOTAS = {
  imageSets: 100,
  trainingSets: 50,
  customServices: 20,
  dailyBatchTasks: 100,
} as const;

export type Quotas = { imageSets: number; trainingSets: number; customServices: number; dailyBatchTasks: number };
