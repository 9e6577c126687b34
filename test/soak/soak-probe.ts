/**
 * The ordinary call whose latency the soak compares with idle: a colour analysis of a small JPEG upload by
 * an account of its own, one call at a time. It runs on a thread of its own, with its own connections: the
 * traffic's work on the soak's main thread (building 50 MB bodies, reading answers) must not delay it, or the
 * soak would measure its own client.
 */
import { Worker } from 'node:worker_threads';
import type { CallRequest, CallResult } from './edge-caller.js';
import type { Outcome } from './soak-traffic.js';
import type { SoakPlatform } from './soak-platform.js';

export type Probe = () => Promise<Outcome>;

export interface ProbeCaller {
  probe: Probe;
  close: () => Promise<void>;
}

/** What the probe thread is given: where to call and as whom. */
export interface ProbeSetup {
  edgeUrl: string;
  request: Omit<CallRequest, 'multipart'>;
}

export function ordinaryCall(soak: SoakPlatform): ProbeCaller {
  const setup: ProbeSetup = { edgeUrl: soak.platform.edgeUrl, request: { method: 'POST', path: '/color/_0000072', key: soak.probe.key, ...(soak.probe.host ? { host: soak.probe.host } : {}) } };
  const thread = new Worker(new URL('./soak-probe.boot.mjs', import.meta.url), { workerData: setup });
  let pending: { resolve: (result: CallResult) => void; reject: (err: Error) => void } | undefined;
  thread.on('message', (result: CallResult) => pending?.resolve(result));
  thread.on('error', (err) => pending?.reject(err));
  return {
    probe: () =>
      new Promise<Outcome>((resolve, reject) => {
        pending = { resolve: (result) => resolve({ action: 'ordinary call', account: soak.probe.name, result }), reject };
        thread.postMessage('call');
      }),
    close: async () => {
      await thread.terminate();
    },
  };
}
