import { app } from './app.js';

export type { AppEnv, Bindings } from './env.js';
export { createApp } from './app.js';

export default app;
