/**
 * The file `iris login` writes: endpoint, access key id and, when given, the secret that signs requests.
 * It lives in the user's config folder (IRIS_CONFIG, else $XDG_CONFIG_HOME/iris/config.json, else
 * ~/.config/iris/config.json; %APPDATA%\iris\config.json on Windows) and is readable by its owner only (600).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { SetupError } from './errors.js';

export const ConfigFile = z.object({
  url_root: z.string().url().optional(),
  access_key_id: z.string().min(1).max(128).optional(),
  secret_key: z.string().min(1).max(256).optional(),
  lang: z.enum(['en', 'zh']).optional(),
});
export type ConfigFileContent = z.output<typeof ConfigFile>;

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.IRIS_CONFIG) return path.resolve(env.IRIS_CONFIG);
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'iris', 'config.json');
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'iris', 'config.json');
}

export function readConfigFile(file: string): ConfigFileContent | null {
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SetupError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success) throw new SetupError(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Writes the file whole (a temp file renamed over it), mode 600 from the start; the folder is 700 when made. */
export function writeConfigFile(file: string, content: ConfigFileContent): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(ConfigFile.parse(content), null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}
