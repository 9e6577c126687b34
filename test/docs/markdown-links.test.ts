import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, brokenLinks, links, slug } from '../../scripts/markdown-links.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('markdown links', () => {
  it('makes the anchors GitHub makes', () => {
    expect(slug('Edge → backend trust')).toBe('edge--backend-trust');
    expect(slug('4. Vector store: HNSW or pgvector')).toBe('4-vector-store-hnsw-or-pgvector');
    expect(slug('Evaluation: `npm run eval -- color`')).toBe('evaluation-npm-run-eval----color');
    expect(slug('`IRIS_SHARED_DIR` and [caches](x.md)')).toBe('iris_shared_dir-and-caches');
    expect([...anchors('# A\n## A\n```\n# not a heading\n```\n<a id="here"></a>\n')]).toEqual(['a', 'a-1', 'here']);
  });

  it('skips links in code and reports missing files and headings', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'iris-links-'));
    writeFileSync(path.join(dir, 'b.md'), '# Title\n## Known part\n');
    const a = path.join(dir, 'a.md');
    writeFileSync(a, [
      '[ok](b.md#known-part) [self](#top) [web](https://example.com/x.md) `[code](gone.md)`',
      '```', '[fenced](gone.md)', '```',
      '# Top',
      '[file](gone.md) [heading](b.md#unknown)',
    ].join('\n'));
    expect(links('`[x](y.md)` [z](w.md "title")')).toEqual([{ line: 1, target: 'w.md' }]);
    expect(brokenLinks(a).map((b) => [b.line, b.target, b.reason])).toEqual([
      [6, 'gone.md', 'no such file'],
      [6, 'b.md#unknown', 'no such heading'],
    ]);
  });

  it('README.md, docs/ and deploy/README.md link only to files and headings that exist', () => {
    const files = [
      'README.md',
      'deploy/README.md',
      ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
    ].map((f) => path.join(root, f));
    expect(files.length).toBeGreaterThan(10);
    const broken = files.flatMap((f) => brokenLinks(f)).map((b) => `${path.relative(root, b.file)}:${b.line} ${b.target} (${b.reason})`);
    expect(broken).toEqual([]);
  });
});
