/**
 * The soak's mixed traffic: each call of an account is one of the actions below, picked at random by weight,
 * at a fixed overall rate with a bounded number of calls in flight per account (a tick finding its account's
 * calls all in flight is skipped and counted). Each action answers one or more results, counted by action.
 * The account's image set is kept at a steady size (the oldest URLs are deleted as new ones are added), so
 * what the data legitimately holds stays flat and any growth the sampler sees is the platform's own.
 */
import { randomBytes } from 'node:crypto';
import type { CallResult } from './edge-caller.js';
import type { SoakAccount, SoakPlatform } from './soak-platform.js';

export interface Outcome {
  action: string;
  account: string;
  result: CallResult;
}

export interface TrafficOptions {
  callsPerSecond: number;
  inFlightPerAccount: number;
  /** Size of the big uploads (aborted, wrong signature). */
  bigUploadBytes: number;
}

/** The analysis services called, with the fields each needs. */
const ANALYSES: { path: string; fields: Record<string, string> }[] = [
  { path: '/detect/_0000049', fields: {} },
  { path: '/classify/_0000024', fields: {} },
  { path: '/color/_0000072', fields: { granularity: 'major', return_type: 'basic' } },
];
/** Most URLs the traffic keeps in an account's set; past it the oldest ten are deleted in one call. */
const SET_CAP = 40;
const BATCH_URLS = 12;
/** Batch tasks whose results are still to be read, per account. */
const OPEN_TASKS = 20;
/** Over the 50 MB upload limit, under the edge's 52 MB body limit: refused by the backend after reading it. */
const OVERSIZED_BYTES = 51 * 1024 * 1024;

interface AccountState {
  account: SoakAccount;
  inFlight: number;
  added: string[];
  tasks: string[];
}

type Action = (soak: SoakPlatform, state: AccountState, options: TrafficOptions) => Promise<Outcome[]>;

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const photo = (soak: SoakPlatform) => pick(soak.photos);
const freshUrl = (soak: SoakPlatform) => soak.images.url(`/photo-${Math.floor(Math.random() * soak.photos.length)}.jpg?n=${randomBytes(6).toString('hex')}`);
const one = (action: string, state: AccountState) => (result: CallResult): Outcome[] => [{ action, account: state.account.name, result }];

/** A picture that passes for a JPEG by its first bytes, `bytes` long. */
function bigPicture(soak: SoakPlatform, bytes: number): Buffer {
  const head = soak.photos[0]!;
  return Buffer.concat([head, Buffer.alloc(Math.max(0, bytes - head.length), 0x5a)]);
}

const ACTIONS: { name: string; weight: number; run: Action }[] = [
  {
    name: 'analysis upload', weight: 4,
    run: async (soak, s) => {
      const { path, fields } = pick(ANALYSES);
      return one('analysis upload', s)(await soak.call(s.account, { method: 'POST', path, multipart: { fields, file: { field: 'search', name: 'q.jpg', bytes: photo(soak) } } }));
    },
  },
  {
    name: 'analysis upload, chunked', weight: 1,
    run: async (soak, s) => {
      const { path, fields } = pick(ANALYSES);
      return one('analysis upload, chunked', s)(await soak.call(s.account, { method: 'POST', path, chunked: true, multipart: { fields, file: { field: 'search', name: 'q.jpg', bytes: photo(soak) } } }));
    },
  },
  {
    name: 'analysis by URL', weight: 1,
    run: async (soak, s) => {
      const { path, fields } = pick(ANALYSES);
      return one('analysis by URL', s)(await soak.call(s.account, { method: 'POST', path, form: { ...fields, url: freshUrl(soak) } }));
    },
  },
  {
    name: 'search upload', weight: 3,
    run: async (soak, s) =>
      one('search upload', s)(await soak.call(s.account, { method: 'POST', path: `/search/${s.account.serviceId}`, multipart: { fields: { count: '5' }, file: { field: 'search', name: 'q.jpg', bytes: photo(soak) } } })),
  },
  {
    name: 'search by URL', weight: 1,
    run: async (soak, s) => one('search by URL', s)(await soak.call(s.account, { method: 'POST', path: `/search/${s.account.serviceId}`, form: { url: freshUrl(soak), count: '5' } })),
  },
  {
    name: 'URL add', weight: 3,
    run: async (soak, s) => {
      const url = freshUrl(soak);
      const path = `/image_sets/_0000014/${s.account.imageSetId}`;
      const outcomes = one('URL add', s)(await soak.call(s.account, { method: 'POST', path, form: { image_url: url, meta: 'soak' } }));
      if (outcomes[0]!.result.status === 200) s.added.push(url);
      if (s.added.length > SET_CAP) {
        const oldest = s.added.splice(0, 10);
        const csv = Buffer.from(oldest.map((u) => `${u}\n`).join(''));
        outcomes.push(...one('URL delete', s)(await soak.call(s.account, { method: 'POST', path, multipart: { file: { field: 'urls_to_delete', name: 'delete.csv', bytes: csv, type: 'text/csv' } } })));
      }
      return outcomes;
    },
  },
  {
    name: 'set reads', weight: 1,
    run: async (soak, s) => [
      ...one('set reads', s)(await soak.call(s.account, { method: 'GET', path: `/image_sets/_0000014/${s.account.imageSetId}` })),
      ...one('set reads', s)(await soak.call(s.account, { method: 'GET', path: `/iris/image_sets/${s.account.imageSetId}/records?count=20` })),
    ],
  },
  {
    name: 'batch prepare + apply', weight: 0.5,
    run: async (soak, s) => {
      const urls = Buffer.from(Array.from({ length: BATCH_URLS }, () => freshUrl(soak)).join('\n'));
      const prepared = await soak.call(s.account, { method: 'POST', path: '/batch/_1000001/task/prepare', multipart: { fields: { service_id: '_0000049' }, file: { field: 'urls', name: 'urls.txt', bytes: urls, type: 'text/plain' } } });
      const outcomes = one('batch prepare', s)(prepared);
      if (prepared.status !== 200) return outcomes;
      const taskId = (JSON.parse(prepared.body) as { data: { task_id: string } }).data.task_id;
      const applied = await soak.call(s.account, { method: 'POST', path: '/batch/_1000001/task/apply', json: { task_id: taskId } });
      outcomes.push(...one('batch apply', s)(applied));
      if (applied.status === 200 && s.tasks.length < OPEN_TASKS) s.tasks.push(taskId);
      return outcomes;
    },
  },
  {
    name: 'batch results', weight: 1,
    run: async (soak, s) => {
      const taskId = s.tasks[0];
      if (!taskId) return one('batch list', s)(await soak.call(s.account, { method: 'GET', path: '/batch/_1000001/tasks' }));
      const info = await soak.call(s.account, { method: 'GET', path: `/batch/_1000001/task/info/${taskId}` });
      const outcomes = one('batch info', s)(info);
      const details = info.status === 200 ? (JSON.parse(info.body) as { data: { state: string; download_urls?: string[] } }).data : undefined;
      if (!details || ['SUCCESS', 'FAILURE', 'REVOKED'].includes(details.state)) s.tasks.shift();
      for (const link of details?.download_urls ?? []) {
        const url = new URL(link);
        outcomes.push(...one('batch result file', s)(await soak.call(s.account, { method: 'GET', path: url.pathname + url.search, bare: true })));
      }
      return outcomes;
    },
  },
  {
    name: 'aborted upload', weight: 0.5,
    run: async (soak, s, o) =>
      one('aborted upload', s)(await soak.call(s.account, { method: 'POST', path: '/classify/_0000024', abortAfterBytes: Math.floor(o.bigUploadBytes / 2), multipart: { file: { field: 'search', name: 'big.jpg', bytes: bigPicture(soak, o.bigUploadBytes) } } })),
  },
  {
    name: 'refused: wrong signature', weight: 0.5,
    run: async (soak, s, o) =>
      one('refused: wrong signature', s)(await soak.call(s.account, { method: 'POST', path: '/classify/_0000024', wrongSignature: true, multipart: { file: { field: 'search', name: 'big.jpg', bytes: bigPicture(soak, o.bigUploadBytes) } } })),
  },
  {
    name: 'refused: oversized', weight: 0.1,
    run: async (soak, s) =>
      one('refused: oversized', s)(await soak.call(s.account, { method: 'POST', path: '/color/_0000072', multipart: { fields: ANALYSES[2]!.fields, file: { field: 'search', name: 'huge.jpg', bytes: bigPicture(soak, OVERSIZED_BYTES) } } })),
  },
  {
    name: 'random key', weight: 1,
    run: async (soak, s) => {
      const stranger: SoakAccount = { ...s.account, key: { keyId: `ak${randomBytes(11).toString('hex')}`, secret: 'x', signs: false } };
      return one('random key', s)(await soak.call(stranger, { method: 'GET', path: '/get_image_sets/_0000014' }));
    },
  },
];
const TOTAL_WEIGHT = ACTIONS.reduce((sum, a) => sum + a.weight, 0);

function pickAction(): (typeof ACTIONS)[number] {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const action of ACTIONS) if ((r -= action.weight) < 0) return action;
  return ACTIONS[0]!;
}

/** Sends the traffic until `stop` resolves, then waits for the calls in flight; `record` sees every outcome. */
export async function runTraffic(soak: SoakPlatform, options: TrafficOptions, stop: Promise<void>, record: (outcome: Outcome) => void): Promise<{ skippedTicks: number }> {
  const states: AccountState[] = soak.accounts.map((account) => ({ account, inFlight: 0, added: [], tasks: [] }));
  const running = new Set<Promise<void>>();
  let stopped = false;
  void stop.then(() => (stopped = true));
  let skippedTicks = 0;
  const intervalMs = 1000 / options.callsPerSecond;
  let next = performance.now();
  for (let tick = 0; !stopped; tick++) {
    const state = states[tick % states.length]!;
    if (state.inFlight >= options.inFlightPerAccount) skippedTicks++;
    else {
      const action = pickAction();
      state.inFlight++;
      const call = action
        .run(soak, state, options)
        .then((outcomes) => outcomes.forEach(record))
        .catch((err: unknown) => record({ action: action.name, account: state.account.name, result: { status: 0, code: undefined, ms: 0, body: '', error: `soak error: ${(err as Error).message}` } }))
        .finally(() => {
          state.inFlight--;
          running.delete(call);
        });
      running.add(call);
    }
    next += intervalMs;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  await Promise.all(running);
  return { skippedTicks };
}
