/**
 * The run's shared platform (support/platform-broker.ts) for a file that only calls it through the edge and the
 * admin API: the file gets an account and key of its own, so what it creates, lists and counts is its own.
 * A file that restarts, kills or configures the platform starts its own with startPlatformFixture.
 */
import { inject } from 'vitest';
import type { SharedPlatformAddress } from './support/platform-broker.js';
import { newAccessKey } from '../../scripts/platform.js';
import { fixtureOf, type PlatformFixture } from './platform-fixture.js';

export async function sharedPlatformFixture(accountName: string): Promise<PlatformFixture> {
  const answer = await fetch(inject('platformBroker'), { method: 'POST' });
  if (!answer.ok) throw new Error(`the shared platform did not start: ${await answer.text()}`);
  const address = (await answer.json()) as SharedPlatformAddress;
  const notShared = (what: string) => () => {
    throw new Error(`${what} is not available on the shared platform: start one with startPlatformFixture`);
  };
  const platform = { ...address, processes: notShared('processes()'), restartBackend: notShared('restartBackend()'), stop: async () => undefined };
  const operator = fixtureOf({ ...platform, devAccount: { account_id: 0, key_id: '', secret: '' } }, address.dataDir);
  const account = await operator.admin('POST', '/admin/accounts', { name: accountName });
  const devAccount = { account_id: Number(account.id), ...newAccessKey() };
  await operator.admin('POST', `/admin/accounts/${devAccount.account_id}/keys`, { key_id: devAccount.key_id, secret: devAccount.secret });
  // The data directory and the platform stay for the other files; the broker stops it at the end of the run.
  return { ...fixtureOf({ ...platform, devAccount }, address.dataDir), stop: async () => undefined };
}
