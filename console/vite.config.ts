import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// Built into dist/console/ so that the edge's static assets (wrangler.toml [assets] directory = console/dist)
// serve it at /console/ on every region's base address.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [preact()],
  // `npm run dev -w console`: the API calls go to the edge of `npm start` (IRIS_EDGE_URL to change it).
  server: { proxy: { '^/(?!console/).*': { target: process.env.IRIS_EDGE_URL ?? 'http://127.0.0.1:8787' } } },
  build: {
    outDir: 'dist/console',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
