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

/**
 * Per-account quotas: everything an account can make the platform hold in memory or on disk. The
 * specification leaves the numbers open; operators change them per account (admin API, CLI).
 * `api` is the admin API / D1 column name, `option` the CLI flag.
 */
export const QUOTA_FIELDS = [
  { key: 'imageSets', api: 'image_sets', option: 'image-sets', default: 100 },
  { key: 'trainingSets', api: 'training_sets', option: 'training-sets', default: 50 },
  { key: 'customServices', api: 'custom_services', option: 'custom-services', default: 20 },
  { key: 'dailyBatchTasks', api: 'daily_batch_tasks', option: 'daily-batch-tasks', default: 100 },
  { key: 'productSets', api: 'product_sets', option: 'product-sets', default: 100 },
  { key: 'searchServices', api: 'search_services', option: 'search-services', default: 50 },
  { key: 'searchServicesPerSet', api: 'search_services_per_set', option: 'search-services-per-set', default: 10 },
  { key: 'recordsPerSet', api: 'records_per_set', option: 'records-per-set', default: 100_000 },
  { key: 'records', api: 'records', option: 'records', default: 1_000_000 },
  { key: 'storedBytes', api: 'stored_bytes', option: 'stored-bytes', default: 20 * 1024 ** 3 },
  { key: 'dailyBadCases', api: 'daily_bad_cases', option: 'daily-bad-cases', default: 1000 },
] as const;

export type QuotaKey = (typeof QUOTA_FIELDS)[number]['key'];
export type Quotas = Record<QuotaKey, number>;

export const DEFAULT_QUOTAS: Readonly<Quotas> = Object.freeze(
  Object.fromEntries(QUOTA_FIELDS.map((f) => [f.key, f.default])) as Quotas,
);

/** The account's quotas from a possibly older or partial context: missing values take the default. */
export function withDefaultQuotas(quotas: Partial<Quotas> | undefined): Quotas {
  return { ...DEFAULT_QUOTAS, ...Object.fromEntries(Object.entries(quotas ?? {}).filter(([, v]) => typeof v === 'number')) };
}
