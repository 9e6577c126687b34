import { describe, expect, it } from 'vitest';
import { planFilteredSearch } from './search-planner.js';

describe('planFilteredSearch', () => {
  it('scans when a filter is selective and walks the graph when it is broad (1M items, 256 dims, ef 96)', () => {
    expect(planFilteredSearch(10_000, 1_000_000, 96, 256).strategy).toBe('scan');
    expect(planFilteredSearch(200_000, 1_000_000, 96, 256).strategy).toBe('graph');
    expect(planFilteredSearch(1_000, 100_000, 96, 256).strategy).toBe('scan');
    expect(planFilteredSearch(20_000, 100_000, 96, 256).strategy).toBe('graph');
  });

  it('always scans tiny stores and never walks for zero matches', () => {
    expect(planFilteredSearch(200, 300, 96, 256).strategy).toBe('scan');
    expect(planFilteredSearch(0, 1_000_000, 96, 256)).toMatchObject({ strategy: 'scan', selectivity: 0 });
  });

  it('moves the switch point with the cost of a walk (ef) and of a scan (dimension)', () => {
    const switchPoint = (ef: number, dim: number): number => {
      let matches = 1;
      while (planFilteredSearch(matches, 1_000_000, ef, dim).strategy === 'scan') matches = Math.ceil(matches * 1.1);
      return matches;
    };
    expect(switchPoint(400, 256)).toBeGreaterThan(switchPoint(50, 256));
    expect(switchPoint(96, 1024)).toBeLessThan(switchPoint(96, 128));
  });
});
