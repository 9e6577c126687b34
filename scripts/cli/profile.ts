/**
 * Where the CLI finds the API and the key, like the released clients' profile (`url_root`, access key):
 * flags, then environment (IRIS_URL_ROOT, IRIS_ACCESS_KEY_ID, IRIS_LANG), then a profile file
 * (--profile, IRIS_PROFILE or ~/.iris/profile.json), then the development account `npm start` writes.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { ClientConfig } from './client.js';

const profileFile = z.object({
  url_root: z.string().url().optional(),
  access_key_id: z.string().min(1).optional(),
  lang: z.enum(['en', 'zh']).optional(),
});

export interface ProfileFlags {
  url?: string;
  key?: string;
  lang?: string;
  profile?: string;
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

export function resolveProfile(flags: ProfileFlags, env: NodeJS.ProcessEnv = process.env, root = process.cwd()): ClientConfig {
  const profilePath = flags.profile ?? env.IRIS_PROFILE ?? path.join(os.homedir(), '.iris', 'profile.json');
  const profile = existsSync(profilePath) ? profileFile.parse(readJson(profilePath)) : {};
  const devAccountFile = path.join(root, env.IRIS_DATA_DIR ?? '.iris', 'dev-account.json');
  const devKey = existsSync(devAccountFile) ? (readJson(devAccountFile) as { key_id?: string }).key_id : undefined;
  const urlRoot = flags.url ?? env.IRIS_URL_ROOT ?? profile.url_root ?? env.IRIS_EDGE_URL ?? 'http://127.0.0.1:8787';
  const accessKeyId = flags.key ?? env.IRIS_ACCESS_KEY_ID ?? profile.access_key_id ?? devKey;
  if (!accessKeyId) throw new Error(`no access key: pass --key, set IRIS_ACCESS_KEY_ID, or write {"url_root", "access_key_id"} to ${profilePath}`);
  const lang = (flags.lang ?? env.IRIS_LANG ?? profile.lang ?? 'en').toLowerCase().startsWith('zh') ? 'zh' : 'en';
  return { urlRoot, accessKeyId, lang };
}
