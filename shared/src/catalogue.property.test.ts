import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COLOR_SUB_TYPES, SCENARIO_EMBEDDINGS, SCENARIOS, SERVICES, colorServiceFor, isScenario } from './catalogue.js';
import { parseTimeOrDate } from './time.js';

const RELEASED_CLIENT_SCENARIOS = ['general', 'material', 'fashion_v5_4', 'furniture_v6', 'wine_v2_1', 'fashion', 'fashion_v3', 'fashion_5_7', 'fashion_v5_5'];
const COLOR_IDS = ['_0000072', '_0000073', '_0000074'];

describe('colour sub_type', () => {
  it('a valid sub_type selects its service on any colour path, as the specification pairs them', () => {
    for (const path of COLOR_IDS) {
      expect(colorServiceFor(path, 'everything')).toBe('_0000072');
      expect(colorServiceFor(path, 'foreground')).toBe('_0000073');
      expect(colorServiceFor(path, 'person_outfit')).toBe('_0000074');
      expect(colorServiceFor(path, undefined)).toBe(path);
    }
  });

  it('any other text is refused on a colour path and ignored on every other service', () => {
    const others = SERVICES.filter((s) => s.family !== 'color').map((s) => s.id);
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), fc.constantFrom(...COLOR_IDS), fc.constantFrom(...others), (subType, colorId, otherId) => {
        const valid = Object.hasOwn(COLOR_SUB_TYPES, subType);
        expect(colorServiceFor(colorId, subType)).toBe(valid ? COLOR_SUB_TYPES[subType as keyof typeof COLOR_SUB_TYPES] : null);
        expect(colorServiceFor(otherId, subType)).toBe(otherId);
      }),
      { numRuns: 500 },
    );
    for (const hostile of ['__proto__', 'constructor', 'toString', 'Foreground', ' foreground', 'foreground\u0000', '']) expect(colorServiceFor('_0000072', hostile), hostile).toBeNull();
  });
});

describe('scenario names', () => {
  it('every name the released clients and the specification offer is a scenario with an embedding', () => {
    for (const name of RELEASED_CLIENT_SCENARIOS) {
      expect(isScenario(name), name).toBe(true);
      expect(['general', 'product', 'material']).toContain(SCENARIO_EMBEDDINGS[name as keyof typeof SCENARIO_EMBEDDINGS]);
    }
    expect([...SCENARIOS].sort()).toEqual([...RELEASED_CLIENT_SCENARIOS].sort());
  });

  it('no other text is a scenario (prototype keys included)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        expect(isScenario(text)).toBe(RELEASED_CLIENT_SCENARIOS.includes(text));
      }),
      { numRuns: 500 },
    );
    for (const hostile of ['__proto__', 'constructor', 'hasOwnProperty', 'FASHION', 'fashion ', 'wine_v2_1\n', null, 7, {}]) expect(isScenario(hostile), String(hostile)).toBe(false);
  });
});

describe('time bounds of the batch task list', () => {
  it('a date alone is its midnight UTC; a full time is itself', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (date) => {
        const iso = date.toISOString();
        const day = iso.slice(0, 10);
        expect(parseTimeOrDate(day)?.toISOString()).toBe(`${day}T00:00:00.000Z`);
        expect(parseTimeOrDate(`${iso.slice(0, 19)}Z`)?.getTime()).toBe(Math.floor(date.getTime() / 1000) * 1000);
      }),
      { numRuns: 300 },
    );
  });

  it('anything else is refused (null), never thrown, whatever its length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), (text) => {
        const parsed = parseTimeOrDate(text);
        if (parsed) expect(/^\s*\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?\s*$/.test(text)).toBe(true);
      }),
      { numRuns: 500 },
    );
    for (const hostile of ['2024-02-30', '2024-13-01', '2024-3-1', '2024-03-01T10:00', '2024-03-01 10:00:00', '20240301', '1'.repeat(100_000), '2024-03-01Z']) {
      expect(parseTimeOrDate(hostile), hostile.slice(0, 20)).toBeNull();
    }
  });
});
