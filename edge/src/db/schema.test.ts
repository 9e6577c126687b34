import { env } from 'cloudflare:test';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as schema from './schema.js';

const tables = [schema.accounts, schema.accessKeys, schema.legacyAccessKeys, schema.accountQuotas, schema.serviceGrants, schema.resources, schema.signatureNonces, schema.auditLog];

describe('drizzle schema', () => {
  it('matches the tables the migrations create', async () => {
    for (const table of tables) {
      const config = getTableConfig(table);
      const { results } = await env.DB.prepare(`PRAGMA table_info(${config.name})`).all<{ name: string; notnull: number; pk: number }>();
      expect(results.map((c) => c.name).sort(), config.name).toEqual(config.columns.map((c) => c.name).sort());
      for (const column of config.columns) {
        const row = results.find((c) => c.name === column.name)!;
        expect(Boolean(row.notnull) || row.pk > 0, `${config.name}.${column.name} not null`).toBe(column.notNull);
      }
    }
  });
});
