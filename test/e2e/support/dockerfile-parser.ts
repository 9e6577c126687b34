/**
 * A Dockerfile read the way `docker build` reads it: comment lines dropped, `\` continuations joined, one
 * instruction per logical line, shell or JSON (exec) form. Only the instructions Iris's Dockerfile uses are
 * understood; any other one fails the parse, so the check that follows the file never skips a line silently.
 * Variables (`$NAME`, `${NAME}`, `${NAME:-default}`) are kept as written: they are substituted while building,
 * where ARG and ENV values are known (substitute()).
 */

export type Instruction =
  | { kind: 'ARG'; name: string; defaultValue: string | undefined }
  | { kind: 'WORKDIR'; path: string }
  | { kind: 'COPY'; from: string | undefined; sources: string[]; dest: string }
  | { kind: 'RUN'; command: string[] }
  | { kind: 'ENV'; pairs: [string, string][] }
  | { kind: 'USER'; user: string }
  | { kind: 'VOLUME'; paths: string[] }
  | { kind: 'EXPOSE'; ports: string[] }
  | { kind: 'CMD'; command: string[] };

export interface Stage {
  /** The name after `AS`, if any. */
  name: string | undefined;
  image: string;
  instructions: (Instruction & { line: string })[];
}

export interface ParsedDockerfile {
  /** ARG lines before the first FROM. */
  globalArgs: { name: string; defaultValue: string | undefined }[];
  stages: Stage[];
}

/** Logical lines: continuations joined, comment and blank lines dropped. */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s*#/.test(raw)) continue; // comments end no continuation (as in docker build)
    if (/\\\s*$/.test(raw)) {
      pending += raw.replace(/\\\s*$/, ' ');
      continue;
    }
    const line = (pending + raw).trim();
    pending = '';
    if (line) lines.push(line);
  }
  if (pending.trim()) lines.push(pending.trim());
  return lines;
}

/** `["a", "b"]` (exec form) or a shell command line (run as `/bin/sh -c`). */
function command(args: string): string[] {
  if (args.startsWith('[')) {
    const parsed: unknown = JSON.parse(args);
    if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string')) throw new Error(`not a JSON array of strings: ${args}`);
    return parsed;
  }
  return ['/bin/sh', '-c', args];
}

/** Words of a shell-form line, honouring double and single quotes. */
function words(args: string): string[] {
  const out: string[] = [];
  for (const match of args.matchAll(/"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g)) out.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]!));
  return out;
}

function envPairs(args: string): [string, string][] {
  const tokens = words(args);
  if (tokens.length > 0 && !tokens[0]!.includes('=')) return [[tokens[0]!, args.slice(args.indexOf(tokens[0]!) + tokens[0]!.length).trim()]]; // `ENV NAME value`
  return tokens.map((t) => {
    const at = t.indexOf('=');
    if (at <= 0) throw new Error(`ENV expects NAME=value, got ${t}`);
    return [t.slice(0, at), t.slice(at + 1)];
  });
}

function copy(args: string): Instruction {
  const tokens = args.startsWith('[') ? (JSON.parse(args) as string[]) : words(args);
  let from: string | undefined;
  const rest: string[] = [];
  for (const token of tokens) {
    if (token.startsWith('--from=')) from = token.slice('--from='.length);
    else if (token.startsWith('--')) throw new Error(`COPY flag not followed by the check: ${token}`);
    else rest.push(token);
  }
  if (rest.length < 2) throw new Error(`COPY needs a source and a destination: ${args}`);
  const sources = rest.slice(0, -1);
  for (const source of sources) if (/[*?[]/.test(source)) throw new Error(`COPY wildcards are not followed by the check: ${source}`);
  return { kind: 'COPY', from, sources, dest: rest[rest.length - 1]! };
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const parsed: ParsedDockerfile = { globalArgs: [], stages: [] };
  for (const line of logicalLines(text)) {
    const match = /^(\S+)\s*(.*)$/.exec(line)!;
    const keyword = match[1]!.toUpperCase();
    const args = match[2]!;
    if (keyword === 'FROM') {
      const [image, as, name] = words(args);
      if (!image || (as !== undefined && (as.toUpperCase() !== 'AS' || !name))) throw new Error(`FROM <image> [AS <name>] expected: ${line}`);
      parsed.stages.push({ image, name, instructions: [] });
      continue;
    }
    let instruction: Instruction;
    switch (keyword) {
      case 'ARG': {
        const at = args.indexOf('=');
        instruction = at < 0 ? { kind: 'ARG', name: args.trim(), defaultValue: undefined } : { kind: 'ARG', name: args.slice(0, at).trim(), defaultValue: words(args.slice(at + 1)).join(' ') };
        break;
      }
      case 'WORKDIR':
        instruction = { kind: 'WORKDIR', path: args };
        break;
      case 'COPY':
        instruction = copy(args);
        break;
      case 'RUN':
        instruction = { kind: 'RUN', command: command(args) };
        break;
      case 'ENV':
        instruction = { kind: 'ENV', pairs: envPairs(args) };
        break;
      case 'USER':
        instruction = { kind: 'USER', user: args };
        break;
      case 'VOLUME':
        instruction = { kind: 'VOLUME', paths: args.startsWith('[') ? (JSON.parse(args) as string[]) : words(args) };
        break;
      case 'EXPOSE':
        instruction = { kind: 'EXPOSE', ports: words(args) };
        break;
      case 'CMD':
        instruction = { kind: 'CMD', command: command(args) };
        break;
      default:
        throw new Error(`instruction not followed by the check: ${line}`);
    }
    const stage = parsed.stages[parsed.stages.length - 1];
    if (!stage) {
      if (instruction.kind !== 'ARG') throw new Error(`${keyword} before the first FROM: ${line}`);
      parsed.globalArgs.push({ name: instruction.name, defaultValue: instruction.defaultValue });
      continue;
    }
    stage.instructions.push({ ...instruction, line });
  }
  if (parsed.stages.length === 0) throw new Error('no FROM line');
  return parsed;
}

/** `$NAME`, `${NAME}` and `${NAME:-default}` replaced from `vars` (unknown names become empty, as in docker build). */
export function substitute(value: string, vars: Record<string, string>): string {
  return value.replace(/\\\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (all, braced: string | undefined, fallback: string | undefined, bare: string | undefined) => {
    if (all === '\\$') return '$';
    const name = braced ?? bare!;
    const known = vars[name];
    return known !== undefined && known !== '' ? known : (fallback ?? '');
  });
}
