import { describe, expect, it } from 'vitest';
import { callJson, newAccount, seedResource, type BackendEcho } from '../../test/helpers.js';

const signature = 'a'.repeat(64);
const link = (taskId: string, expires = Math.floor(Date.now() / 1000) + 600) => `/batch/_1000001/results/${taskId}/urls.txt?expires=${expires}&signature=${signature}`;

describe('batch result links', () => {
  it('work with nothing but the link, in each region, for the task owner', async () => {
    const account = await newAccount();
    for (const [region, host] of [['cn-east', 'localhost'], ['ap-southeast', 'ap-southeast.localhost:8787']] as const) {
      const taskId = await seedResource('batch_task', account.accountId, { region });
      const res = await callJson<BackendEcho>(link(taskId), { host });
      expect(res.status).toBe(200);
      expect(res.body.backend).toBe(region);
      expect(res.body.verified).toBe(true);
      expect(res.body.account).toBe(account.accountId);
      expect(res.body.url).toContain(`signature=${signature}`);
      expect(res.body.context?.publicBase).toBe(`http://${host}`);
    }
  });

  it('refuses another region, unknown tasks, expired and malformed links in the batch shape', async () => {
    const account = await newAccount();
    const taskId = await seedResource('batch_task', account.accountId, { region: 'ap-southeast' });
    const elsewhere = await callJson<{ data: { error_code: number }; is_error: number }>(link(taskId), { host: 'localhost' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toMatchObject({ is_error: 1, data: { error_code: 400011 } });
    const expired = await callJson<{ data: { error_code: number } }>(link(taskId, 1000), { host: 'ap-southeast.localhost' });
    expect(expired.status).toBe(401);
    expect(expired.body.data.error_code).toBe(1105);
    const malformed = await callJson<{ data: { error_code: number } }>(`/batch/_1000001/results/${taskId}/urls.txt?expires=x&signature=y`, { host: 'ap-southeast.localhost' });
    expect(malformed.body.data.error_code).toBe(1104);
    // Without link parameters an access key is still required.
    const bare = await callJson<{ data: { error_code: number } }>(`/batch/_1000001/results/${taskId}/urls.txt`, { host: 'ap-southeast.localhost' });
    expect(bare.body.data.error_code).toBe(1101);
  });
});
