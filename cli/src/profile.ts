/**
 * Where the CLI finds the API, the key and the secret: flags, then environment (IRIS_URL_ROOT,
 * IRIS_ACCESS_KEY_ID, IRIS_SECRET_KEY, IRIS_LANG), then one file: --profile or IRIS_PROFILE when given, else
 * the file `iris login` writes (config-file.ts), else ~/.iris/profile.json (older installs); last, the
 * development account `npm start` writes in the current folder (.iris/dev-account.json).
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientConfig } from './client.js';
import { configPath, readConfigFile } from './config-file.js';
import { SetupError } from './errors.js';

export interface ProfileFlags {
  url?: string;
  key?: string;
  lang?: string;
  profile?: string;
}

/** The file the settings come from (it may not exist). */
export function profilePath(flags: ProfileFlags, env: NodeJS.ProcessEnv = process.env): string {
  if (flags.profile ?? env.IRIS_PROFILE) return path.resolve((flags.profile ?? env.IRIS_PROFILE)!);
  const login = configPath(env);
  const legacy = path.join(os.homedir(), '.iris', 'profile.json');
  return !existsSync(login) && existsSync(legacy) ? legacy : login;
}

export function resolveProfile(flags: ProfileFlags, env: NodeJS.ProcessEnv = process.env, root = process.cwd()): ClientConfig {
  const file = profilePath(flags, env);
  const profile = readConfigFile(file) ?? {};
  const devAccountFile = path.join(root, env.IRIS_DATA_DIR ?? '.iris', 'dev-account.json');
  const devKey = existsSync(devAccountFile) ? (JSON.parse(readFileSync(devAccountFile, 'utf8')) as { key_id?: string }).key_id : undefined;
  const urlRoot = flags.url ?? env.IRIS_URL_ROOT ?? profile.url_root ?? env.IRIS_EDGE_URL ?? 'http://127.0.0.1:8787';
  const accessKeyId = flags.key ?? env.IRIS_ACCESS_KEY_ID ?? profile.access_key_id ?? devKey;
  if (!accessKeyId) throw new SetupError(`no access key: run \`iris login\`, pass --key, set IRIS_ACCESS_KEY_ID, or write {"url_root", "access_key_id"} to ${file}`);
  // A secret belongs to its key: the file's secret signs only for the file's key.
  const secret = env.IRIS_SECRET_KEY || (accessKeyId === profile.access_key_id ? profile.secret_key : undefined);
  const lang = (flags.lang ?? env.IRIS_LANG ?? profile.lang ?? 'en').toLowerCase().startsWith('zh') ? 'zh' : 'en';
  return { urlRoot, accessKeyId, lang, ...(secret ? { secret } : {}) };
}
