/** Resource kinds tracked by the edge registry. */
export const RESOURCE_KINDS = ['image_set', 'product_set', 'training_set', 'search_service', 'custom_service', 'batch_task'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A new resource id: 20 lowercase alphanumerics from a CSPRNG (WebCrypto, so it runs on both sides). */
export function newResourceId(length = 20): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let id = '';
  for (const b of bytes) id += ALPHABET[b % ALPHABET.length];
  return id;
}

/** Resource ids accepted in paths: what `newResourceId` mints (kept loose for forward compatibility). */
export const RESOURCE_ID_PATTERN = /^[a-z0-9]{8,40}$/;
