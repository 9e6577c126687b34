import type { MiddlewareHandler } from 'hono';
import { ApiError } from '@iris/shared';
import type { AppEnv } from '../env.js';

function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/** `Authorization: Bearer <ADMIN_TOKEN>`; without ADMIN_TOKEN the admin API does not exist (404). */
export function adminAuth(): MiddlewareHandler<AppEnv> {
  return async function adminAuth(c, next) {
    const token = c.get('config').adminToken;
    if (!token) throw new ApiError('notFound', 'the admin API is disabled (ADMIN_TOKEN is not set)');
    const given = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1]?.trim() ?? '';
    if (!constantTimeEqual(given, token)) throw new ApiError('unauthorizedInternal', 'admin token missing or wrong');
    await next();
  };
}
