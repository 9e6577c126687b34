// Worker-thread entry: registers the TypeScript loader (the backend runs from source) and loads the real worker.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
