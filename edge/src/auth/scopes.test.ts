import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEY_SCOPES, OPERATIONS } from '@iris/shared';
import { scopeAllows, scopeForCall } from './scopes.js';

describe('scope of a call', () => {
  it('follows the documented table', () => {
    const cases: [string, string, string][] = [
      ['GET', '/get_image_sets/_0000014', 'read'],
      ['POST', '/get_image_sets/_0000014', 'read'],
      ['GET', '/image_sets/_0000014/abc', 'read'],
      ['GET', '/iris/image_sets/abc/records', 'read'],
      ['POST', '/image_sets/_0000014', 'data'],
      ['DELETE', '/product_sets/_0000178/abc/products', 'data'],
      ['DELETE', '/custom_training/_0000194/training_sets/abc/images', 'data'],
      ['POST', '/customer_services/_0000172/abc/evaluation', 'data'],
      ['POST', '/search/svc', 'search'],
      ['POST', '/product_search/svc', 'search'],
      ['POST', '/detect/_0000049', 'analysis'],
      ['POST', '/color/_0000072', 'analysis'],
      ['POST', '/custom_training/svc123', 'analysis'],
      ['GET', '/batch/_1000001/tasks', 'batch'],
      ['POST', '/batch/_1000001/task/prepare', 'batch'],
      ['GET', '/iris/keys', 'admin-of-account'],
      ['DELETE', '/iris/keys/kr00', 'admin-of-account'],
      ['PUT', '/iris/account', 'admin-of-account'],
      ['GET', '/iris/audit', 'admin-of-account'],
      ['GET', '/iris/webhooks', 'read'],
      ['POST', '/iris/webhooks', 'admin-of-account'],
      ['DELETE', '/iris/webhooks/wh1', 'admin-of-account'],
      ['POST', '/iris/image_sets/abc/files', 'data'],
    ];
    for (const [method, path, scope] of cases) expect(scopeForCall(method, path), `${method} ${path}`).toBe(scope);
  });

  it('gives every operation of the contract exactly one scope', () => {
    for (const operation of OPERATIONS.filter((o) => !o.public)) {
      const path = operation.path.replace(/\{[^}]+\}/g, 'x1');
      expect(KEY_SCOPES, operation.id).toContain(scopeForCall(operation.method.toUpperCase(), path));
    }
  });

  it('property: any method and path get a known scope; no list allows everything, a list only itself', () => {
    fc.assert(
      fc.property(fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), fc.string({ maxLength: 200 }), fc.subarray([...KEY_SCOPES]), (method, path, scopes) => {
        const needed = scopeForCall(method, `/${path}`);
        expect(KEY_SCOPES).toContain(needed);
        expect(scopeAllows(null, needed)).toBe(true);
        expect(scopeAllows(scopes, needed)).toBe(scopes.includes(needed));
      }),
    );
  });
});
