/** `iris login` / `iris logout`: the config file of config-file.ts, checked with one call before it is kept. */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createClient } from './client.js';
import { configPath, readConfigFile, writeConfigFile, type ConfigFileContent } from './config-file.js';
import { UsageError } from './errors.js';

/** The secret from the first line of standard input (a pipe or a file; never an argument, which others can see). */
function secretFromStdin(): string {
  const line = readFileSync(0, 'utf8').split(/\r?\n/)[0]?.trim() ?? '';
  if (!line) throw new UsageError('--secret-stdin: standard input holds no secret', 'login');
  return line;
}

export function loginSettings(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, readSecret = secretFromStdin): { content: ConfigFileContent; verify: boolean } {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: { url: { type: 'string' }, key: { type: 'string' }, 'secret-stdin': { type: 'boolean' }, lang: { type: 'string' }, 'no-verify': { type: 'boolean' } },
  });
  const previous = readConfigFile(configPath(env)) ?? {};
  const url = values.url ?? env.IRIS_URL_ROOT ?? previous.url_root;
  const key = values.key ?? env.IRIS_ACCESS_KEY_ID ?? previous.access_key_id;
  if (!url || !key) throw new UsageError('login needs --url <url_root> and --key <access_key_id>', 'login');
  try {
    new URL(url);
  } catch {
    throw new UsageError(`--url is not a URL: ${url}`, 'login');
  }
  if (values.lang !== undefined && values.lang !== 'en' && values.lang !== 'zh') throw new UsageError('--lang must be en or zh', 'login');
  const secret = values['secret-stdin'] ? readSecret() : env.IRIS_SECRET_KEY || undefined;
  const lang = (values.lang ?? previous.lang) as ConfigFileContent['lang'];
  return { content: { url_root: url.replace(/\/+$/, ''), access_key_id: key, ...(secret ? { secret_key: secret } : {}), ...(lang ? { lang } : {}) }, verify: !values['no-verify'] };
}

export async function runLogin(argv: readonly string[]): Promise<string> {
  const { content, verify } = loginSettings(argv);
  if (verify) {
    const client = createClient({ urlRoot: content.url_root!, accessKeyId: content.access_key_id!, lang: content.lang ?? 'en', ...(content.secret_key ? { secret: content.secret_key } : {}) });
    await client.call('listImageSets', {});
  }
  const file = configPath();
  writeConfigFile(file, content);
  return `logged in to ${content.url_root} as ${content.access_key_id}${content.secret_key ? ' (requests signed)' : ''}; settings in ${file}`;
}

export function runLogout(): string {
  const file = configPath();
  if (!existsSync(file)) return `not logged in (${file} does not exist)`;
  rmSync(file);
  return `removed ${file}`;
}
