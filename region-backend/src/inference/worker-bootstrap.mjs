// Worker-thread entry: lowers this thread's CPU priority when its pool tier asks for it, registers the
// TypeScript loader (the backend runs from source) and loads the real worker.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';

if (workerData.nice) {
  try {
    // On Linux the nice value is per thread: /proc/thread-self names this thread's id. It starts with its
    // creator's value, and goes `nice` lower than that; threads this one starts later inherit it.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, Math.min(19, getPriority(tid) + workerData.nice));
  } catch {
    // No per-thread priorities on this system: the tier still has threads of its own.
  }
}

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
