/** Admin API request bodies (also used by the CLI's documentation in docs/edge.md). */
import { z } from 'zod';
import { ApiError, QUOTA_FIELDS } from '@iris/shared';

export const createAccountBody = z.object({
  name: z.string().trim().min(1).max(200),
  id: z.number().int().min(1).optional(),
});

export const createKeyBody = z.object({
  key_id: z.string().regex(/^[A-Za-z0-9._~-]{4,128}$/, 'key_id: 4-128 characters of A-Z a-z 0-9 . _ ~ -').optional(),
  secret: z.string().min(8).max(256).refine((s) => s.trim() === s, 'secret must not start or end with white space').optional(),
  signature_required: z.boolean().optional(),
});

export const updateKeyBody = z.object({
  enabled: z.boolean().optional(),
  signature_required: z.boolean().optional(),
});

const quota = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional();
/** Every quota by its API name (`QUOTA_FIELDS`); null restores the default. */
export const quotasBody = z.object(Object.fromEntries(QUOTA_FIELDS.map((f) => [f.api, quota])) as Record<(typeof QUOTA_FIELDS)[number]['api'], typeof quota>).strict();

/** Parses a JSON body with a schema; refusals use the resource error shape (400/1111). */
export async function parseBody<T extends z.ZodTypeAny>(request: Request, schema: T): Promise<z.infer<T>> {
  const text = await request.text();
  let value: unknown = {};
  if (text.trim()) {
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError('badRequest', 'body must be JSON');
    }
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError('badRequest', result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return result.data;
}

export function parseAccountId(text: string | undefined): number {
  const id = Number(text);
  if (!Number.isInteger(id) || id < 1) throw new ApiError('notFound', `account ${text ?? ''} does not exist`);
  return id;
}
