/**
 * Relative links of Markdown files: which ones point at a file or a heading that does not exist. Headings are
 * turned into anchors the way GitHub does (lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` …
 * for repeats), so `docs/edge.md#edge--backend-trust` is checked against the heading "Edge → backend trust".
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, i) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) out.push({ line: i + 1, text: raw });
  });
  return out;
}

/** GitHub's anchor for a heading's text. */
export function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images keep their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/`/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown text defines: its headings, numbered on repeats, and `<a id|name="…">`. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      found.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(m[1]!);
  }
  return found;
}

/** Link targets of a Markdown text outside code (inline code spans and fenced blocks are skipped). */
export function links(text: string): Array<{ line: number; target: string }> {
  const out: Array<{ line: number; target: string }> = [];
  for (const { line, text: raw } of proseLines(text)) {
    const prose = raw.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line, target: m[1]! });
  }
  return out;
}

const external = /^[a-z][a-z0-9+.-]*:/i;

/** Relative links of `file` whose file or anchor does not exist. */
export function brokenLinks(file: string, readText: (f: string) => string = (f) => readFileSync(f, 'utf8')): BrokenLink[] {
  const text = readText(file);
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsOf = (f: string) => {
    let set = anchorCache.get(f);
    if (!set) anchorCache.set(f, (set = anchors(f === file ? text : readText(f))));
    return set;
  };
  for (const { line, target } of links(text)) {
    if (external.test(target)) continue;
    const [rawPath, fragment] = target.split('#', 2) as [string, string | undefined];
    const resolved = rawPath === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(rawPath));
    if (!existsSync(resolved)) {
      broken.push({ file, line, target, reason: 'no such file' });
      continue;
    }
    if (fragment === undefined || fragment === '' || !resolved.endsWith('.md') || statSync(resolved).isDirectory()) continue;
    if (!anchorsOf(resolved).has(decodeURIComponent(fragment).toLowerCase())) {
      broken.push({ file, line, target, reason: 'no such heading' });
    }
  }
  return broken;
}
