// Worker-thread entry: moves this thread's CPU priority as its pool tier asks, tells the pool where it landed,
// registers the TypeScript loader (the backend runs from source) and loads the real worker.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import process from 'node:process';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * On Linux the nice value is per thread: /proc/thread-self names this thread's id. It starts with its
 * creator's value; threads this one starts later (ONNX Runtime's) inherit the value set here. A positive
 * offset (a lower priority) is always allowed. A negative one needs CAP_SYS_NICE or a high enough
 * RLIMIT_NICE: the thread is raised as far as allowed, possibly not at all. Answers the offset reached,
 * relative to the process's main thread.
 */
function applyNice(offset) {
  if (!offset) return 0;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    const base = getPriority(process.pid);
    for (let target = Math.max(-20, Math.min(19, base + offset)); target !== base; target += offset < 0 ? 1 : -1) {
      try {
        setPriority(tid, target);
        break;
      } catch {
        // Not allowed this high: one level less.
      }
    }
    return getPriority(tid) - base;
  } catch {
    // No per-thread priorities on this system: the tier still has threads of its own.
    return 0;
  }
}

// A thread that warms its models first (the entry's top-level await) does so at the lower of its tier's and the
// process's priority: raised only once warm, so threads warming at start never crowd out the process's other
// work (a lowered priority could not be raised back without privileges, so a lowered tier lowers first).
const raiseAfterWarming = workerData.warm && workerData.nice < 0;
if (!raiseAfterWarming) parentPort.postMessage({ nice: applyNice(workerData.nice) });

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
// Runs before this thread handles any message, so its first job already runs at the tier's priority.
if (raiseAfterWarming) parentPort.postMessage({ nice: applyNice(workerData.nice) });
