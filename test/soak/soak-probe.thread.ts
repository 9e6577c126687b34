/** The probe's thread: one ordinary call per message from the soak, answered with its result. */
import { parentPort, workerData } from 'node:worker_threads';
import { photoJpeg } from '../../region-backend/test/support/test-images.js';
import { callEdge } from './edge-caller.js';
import type { ProbeSetup } from './soak-probe.js';

const setup = workerData as ProbeSetup;
const picture = await photoJpeg(320, 240, 99);

parentPort!.on('message', async () => {
  const result = await callEdge(setup.edgeUrl, {
    ...setup.request,
    multipart: { fields: { granularity: 'major', return_type: 'basic' }, file: { field: 'search', name: 'q.jpg', bytes: picture } },
  });
  parentPort!.postMessage(result);
});
