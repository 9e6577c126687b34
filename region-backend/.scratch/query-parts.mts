import sharp from 'sharp';
import { decodeImage } from '/work/wt/ingest/region-backend/src/images/image-decoder.js';
import { embedForQuery } from '/work/wt/ingest/region-backend/src/vision/embedding/search-embedding.js';
import searchQueryFeaturesTask from '/work/wt/ingest/region-backend/src/inference/tasks/search-query-features.task.js';
import { textBanner } from '/work/wt/ingest/region-backend/src/vision/embedding/text-banner.js';
import { queryLocalFeatures } from '/work/wt/ingest/region-backend/src/vision/embedding/local-features.js';
import { opencv } from '/work/wt/ingest/region-backend/src/vision/runtime/opencv-runtime.js';
import { photoJpeg } from '/work/wt/ingest/region-backend/test/support/test-images.js';
import { realPhoto } from '/work/wt/ingest/region-backend/test/support/real-photos.js';

const median = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
async function time(fn: () => Promise<unknown> | unknown, runs = 15) {
  await fn();
  const s: number[] = [];
  for (let i = 0; i < runs; i++) { const t = performance.now(); await fn(); s.push(performance.now() - t); }
  return median(s).toFixed(1);
}
const { cv } = await opencv();
const real = await realPhoto('samples.jpg', 1280);
for (const [w, h] of [[640, 480], [1024, 768]] as const) {
  for (const kind of ['synthetic', 'real']) {
    const jpeg = kind === 'synthetic' ? await photoJpeg(w, h, 3) : await sharp(Buffer.from(real.data), { raw: { width: real.width, height: real.height, channels: 3 } }).resize(w, h, { fit: 'fill' }).jpeg({ quality: 85 }).toBuffer();
    const rgb = await decodeImage(jpeg, { maxSide: 1024 });
    const row = {
      size: `${w}x${h} ${kind}`,
      decode: await time(() => decodeImage(jpeg, { maxSide: 1024 })),
      embed: await time(() => embedForQuery({ rgb, scenario: 'general', features: false })),
      banner: await time(() => textBanner(rgb)),
      orb: await time(() => queryLocalFeatures(cv, rgb, false, null)),
      orbMirror: await time(() => queryLocalFeatures(cv, rgb, true, null)),
      featuresTask: await time(() => searchQueryFeaturesTask({ rgb, mirror: false })),
      featuresTaskMirror: await time(() => searchQueryFeaturesTask({ rgb, mirror: true })),
    };
    console.log(JSON.stringify(row));
  }
}
