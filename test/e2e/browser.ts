/**
 * A real headless browser for the console tests: Debian's chromium driven by playwright-core. When the
 * browser is missing the test setup installs it (apt-get, as root); otherwise it fails with a clear message.
 * It is never skipped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function hasChineseFont(): boolean {
  try {
    return execFileSync('fc-list', [':lang=zh'], { encoding: 'utf8' }).trim().length > 0;
  } catch {
    return false;
  }
}

/** Makes sure Debian's chromium (and a Chinese font, for the screenshots) is installed; returns its path. */
export function ensureChromium(): string {
  const missing = [...(existsSync(CHROMIUM) ? [] : ['chromium']), ...(hasChineseFont() ? [] : ['fonts-wqy-zenhei'])];
  if (!missing.length) return CHROMIUM;
  if (process.getuid?.() !== 0) {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`The console tests need Debian's chromium at ${CHROMIUM}. Install it as root: apt-get update && apt-get install -y chromium fonts-wqy-zenhei`);
    }
    return CHROMIUM; // only the font is missing: screenshots show boxes for Chinese text, the test still runs
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'inherit', timeout: 600_000 });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env, stdio: 'inherit', timeout: 900_000 });
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get install chromium finished but ${CHROMIUM} is still missing`);
  return CHROMIUM;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh browser profile (its own user-data-dir), laptop-sized viewport. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = ensureChromium();
  const profile = mkdtempSync(path.join(os.tmpdir(), 'iris-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
    timeout: 60_000,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
