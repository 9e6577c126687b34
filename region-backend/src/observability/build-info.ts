/**
 * What this process runs: Iris's version (this package's package.json, beside src/ and dist/ alike), the
 * commit it was built from (IRIS_BUILD_COMMIT, set by the image build; `unknown` when unset) and Node's
 * version. Reported by `/readyz` and the `iris_build_info` metric.
 */
import { readFileSync } from 'node:fs';
import { StartupError } from '../util/startup-error.js';

export interface BuildInfo {
  version: string;
  commit: string;
  node: string;
}

const PACKAGE_JSON = new URL('../../package.json', import.meta.url);
/** A git object name or a tag-like label: it becomes a metric label, so it stays short and plain. */
const COMMIT = /^[0-9A-Za-z._-]{1,64}$/;

export function readBuildInfo(env: NodeJS.ProcessEnv = process.env): BuildInfo {
  const { version } = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string };
  const commit = env.IRIS_BUILD_COMMIT?.trim() || 'unknown';
  if (!COMMIT.test(commit)) throw new StartupError('invalid backend configuration: IRIS_BUILD_COMMIT must be 1 to 64 letters, digits, dots, dashes or underscores (a commit id): fix it or unset it');
  return { version, commit, node: process.version };
}
