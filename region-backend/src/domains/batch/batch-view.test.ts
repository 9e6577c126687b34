import { describe, expect, it } from 'vitest';
import { TaskDetails } from '@iris/shared';
import { processingSeconds, rateFunction, waitingSeconds } from './batch-estimates.js';
import { isServedFile, resultFileName, signedLink, verifyLink } from './batch-links.js';
import type { BatchTaskRow, QueuedTask, TaskState } from './batch-task.repo.js';
import { taskDetails, taskSummary, type ViewContext } from './batch-view.js';

function task(state: TaskState, overrides: Partial<BatchTaskRow> = {}): BatchTaskRow {
  return {
    id: 'task00000000000000001',
    account_id: 1,
    service_id: '_0000072',
    params: {},
    lang: 'en',
    state,
    total: 100,
    success: 40,
    result_files: ['results-0001.jsonl'],
    message: null,
    received_at: new Date('2024-05-01T08:00:00.250Z'),
    applied_at: new Date('2024-05-01T08:01:00Z'),
    started_at: null,
    finished_at: null,
    input_bytes: 0,
    result_bytes: 0,
    ...overrides,
  };
}

const queued = (id: string, service: string, remaining: number): QueuedTask => ({ id, service_id: service, state: 'PENDING', remaining, applied_at: new Date() });

const view = (queue: QueuedTask[] = []): ViewContext => ({
  queue,
  rateOf: rateFunction(new Map([['_0000072', 0.5]])),
  link: (t, file) => `https://edge/${t.id}/${file}`,
});

describe('estimates', () => {
  it('use the measured rate of a service, else its initial value, else the one of its family', () => {
    const rateOf = rateFunction(new Map([['_0000049', 2]]));
    expect(rateOf('_0000049')).toBe(2);
    expect(rateOf('_0000039')).toBe(1.3);
    expect(rateOf('_0000188')).toBe(0.5);
    expect(rateFunction(new Map(), 7)('_0000039')).toBe(7);
    // Custom classifier ids are not in the catalogue: classify's initial value.
    expect(rateOf('abcdefghij0123456789')).toBe(0.3);
    expect(processingSeconds(3, '_0000049', rateOf)).toBe(6);
    expect(processingSeconds(1, '_0000039', rateOf)).toBe(2);
  });

  it('wait for the queued work ahead of a task, or for all of it when the task is not queued', () => {
    const rateOf = rateFunction(new Map([['a', 1], ['b', 0.5]]));
    const queue = [queued('t1', 'a', 10), queued('t2', 'b', 10), queued('t3', 'a', 4)];
    expect(waitingSeconds(queue, 't1', rateOf)).toBe(0);
    expect(waitingSeconds(queue, 't3', rateOf)).toBe(15);
    expect(waitingSeconds(queue, 'new', rateOf)).toBe(19);
  });
});

describe('task details per state', () => {
  it('RECEIVED, REVOKED and FAILURE carry the base fields only', () => {
    for (const state of ['RECEIVED', 'REVOKED', 'FAILURE'] as const) {
      expect(taskDetails(task(state), view())).toEqual({
        csv: 'https://edge/task00000000000000001/urls.txt',
        received_time: '2024-05-01T08:00:00Z',
        service_id: '_0000072',
        state,
        task_id: 'task00000000000000001',
        total: 100,
      });
    }
  });

  it('PENDING adds both estimates; STARTED the processing estimate and progress; SUCCESS links and success', () => {
    const queue = [queued('other', '_0000072', 20), queued('task00000000000000001', '_0000072', 60)];
    const pending = taskDetails(task('PENDING'), view(queue));
    expect(pending).toMatchObject({ estimated_processing_time: 30, estimated_waiting_time: 10 });
    expect(pending).not.toHaveProperty('success');

    const started = taskDetails(task('STARTED'), view(queue));
    expect(started).toMatchObject({ estimated_processing_time: 30, success: 40 });
    expect(started).not.toHaveProperty('estimated_waiting_time');

    const success = taskDetails(task('SUCCESS', { success: 100, result_files: ['results-0001.jsonl', 'results-0002.jsonl'] }), view());
    expect(success).toMatchObject({ success: 100, download_urls: ['https://edge/task00000000000000001/results-0001.jsonl', 'https://edge/task00000000000000001/results-0002.jsonl'] });
    expect(success).not.toHaveProperty('estimated_processing_time');
    // As serialized: the contract's schema writes the keys in byte order.
    const written = Object.keys(TaskDetails.parse(success));
    expect(written).toEqual([...written].sort());
  });

  it('prepare and apply answer estimates, state, task_id and total', () => {
    expect(taskSummary(task('RECEIVED', { success: 0 }), view([queued('x', '_0000072', 8)]))).toEqual({
      estimated_processing_time: 50,
      estimated_waiting_time: 4,
      state: 'RECEIVED',
      task_id: 'task00000000000000001',
      total: 100,
    });
  });
});

describe('result links', () => {
  const target = { accountId: 3, taskId: 'abc123def456', file: resultFileName(0) };
  const query = (link: string) => Object.fromEntries(new URL(link).searchParams) as { expires?: string; signature?: string };

  it('verify for the same account, task, file and an unexpired time only', () => {
    const link = signedLink('https://edge.example/', 'secret-secret-secret', target, Date.now() + 60_000);
    expect(link.startsWith('https://edge.example/batch/_1000001/results/abc123def456/results-0001.jsonl?expires=')).toBe(true);
    expect(() => verifyLink('secret-secret-secret', target, query(link))).not.toThrow();
    expect(() => verifyLink('secret-secret-secret', { ...target, accountId: 4 }, query(link))).toThrow(/not valid/);
    expect(() => verifyLink('secret-secret-secret', { ...target, file: 'results-0002.jsonl' }, query(link))).toThrow(/not valid/);
    expect(() => verifyLink('another-secret-value', target, query(link))).toThrow(/not valid/);
    expect(() => verifyLink('secret-secret-secret', target, {})).toThrow(/expires and signature/);
    expect(() => verifyLink('secret-secret-secret', target, query(link), Date.now() + 120_000)).toThrow(/expired/);
  });

  it('name only the input file and numbered result files', () => {
    expect(resultFileName(11)).toBe('results-0012.jsonl');
    expect(isServedFile('urls.txt')).toBe(true);
    expect(isServedFile('results-0012.jsonl')).toBe(true);
    expect(isServedFile('../urls.txt')).toBe(false);
    expect(isServedFile('results-0012.jsonl.tmp')).toBe(false);
  });
});
