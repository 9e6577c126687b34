// The probe thread's entry: a worker thread does not inherit the TypeScript loader, so it registers it first.
import { register } from 'tsx/esm/api';

register();
await import('./soak-probe.thread.ts');
