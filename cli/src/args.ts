/** The command line of the data commands: one option table, parsed strictly (an unknown option is a usage error). */
import { parseArgs } from 'node:util';
import type { CommandOptions } from './data-commands.js';
import { UsageError } from './errors.js';
import type { ProfileFlags } from './profile.js';

const OPTIONS = {
  url: { type: 'string' },
  key: { type: 'string' },
  lang: { type: 'string' },
  profile: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  description: { type: 'string' },
  scenario: { type: 'string' },
  product: { type: 'boolean' },
  count: { type: 'string' },
  loc: { type: 'string' },
  tags: { type: 'string' },
  meta: { type: 'string' },
  draw: { type: 'string' },
  granularity: { type: 'string' },
  'return-type': { type: 'string' },
  wait: { type: 'boolean' },
  watch: { type: 'boolean' },
  out: { type: 'string' },
  'timeout-seconds': { type: 'string' },
  'sample-size': { type: 'string' },
  edits: { type: 'string' },
  status: { type: 'boolean' },
  kind: { type: 'string' },
  concurrency: { type: 'string' },
  param: { type: 'string', multiple: true },
  query: { type: 'string', multiple: true },
  form: { type: 'string', multiple: true },
  file: { type: 'string', multiple: true },
  body: { type: 'string' },
} as const;

export interface DataCommandLine {
  positionals: string[];
  options: CommandOptions & ProfileFlags & { help?: boolean };
}

export function parseDataArgs(argv: readonly string[]): DataCommandLine {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
    return { positionals, options: values as DataCommandLine['options'] };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) throw new UsageError((err as Error).message, argv[0]);
    throw err;
  }
}
