/**
 * `npm run bench -- onnx-runtime`: the model pack on ONNX Runtime against the TFJS originals (wasm backend,
 * what served before), measured in the same run on the same inputs (640-px real photos brought to each
 * model's input size). Per model: TFJS ms, the bare ONNX Runtime session on the conversion (the floor, with ONNX
 * Runtime's memory arena), and the production call (manifest model, no arena, input preparation included). Then the embedding per image per core
 * (batch 1 and 8; float floor and int8 QDQ session side by side), background throughput with dynamic batching on all cores, ingest of 640-px JPEGs over
 * loopback HTTP (download + decode + embed), and interactive latency while a background batch runs, each
 * with the float and the int8 backbone.
 * IRIS_BENCH_RUNS (default 15) sets the timed runs per row.
 */
import type { RgbImage } from '../src/images/rgb-image.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import sharp from 'sharp';
import type * as tfTypes from '@tensorflow/tfjs';
import { median, printTable, timeIt } from '../../scripts/table.js';
import { resolveManifest } from '../src/vision/runtime/model-config.js';
import type { ModelManifest } from '../src/vision/runtime/model-manifest.js';
import { backboneInput, backboneSession, backboneSpec, EMBEDDING_OUTPUTS } from '../src/vision/embedding/backbone.js';
import { InferencePool } from '../src/inference/inference-pool.js';
import { loadManifestModel, manifestInput } from '../src/vision/runtime/manifest-model.js';
import { nsfwjsArtifacts, relaxInputShape } from '../src/vision/runtime/nsfwjs-models.js';
import { limitSide, resizeRgb, type InputTensor } from '../src/vision/runtime/pixels.js';
import { fileIOHandler, tfjs } from '../src/vision/runtime/tfjs.js';
import { convertedModel, convertedSession } from '../src/vision/runtime/converted-model.js';
import { ort, sessionOptions } from '../src/vision/runtime/onnx-session.js';
import { realPhoto } from '../test/support/real-photos.js';
import { renderView } from '../src/vision/embedding/image-views.js';
import { scenarioViews } from '../src/vision/embedding/scenario-config.js';

const RUNS = Number(process.env.IRIS_BENCH_RUNS ?? 15);
const STAGES = ['object-detector', 'face-detector', 'face-attributes', 'person-pose', 'person-segmentation', 'porn-classifier'];

async function tfjsGraph(file: string, relax = false): Promise<tfTypes.GraphModel> {
  const tf = await tfjs();
  return tf.loadGraphModel(file.endsWith('.min.js') ? tf.io.fromMemory(relax ? relaxInputShape(nsfwjsArtifacts(file)) : nsfwjsArtifacts(file)) : fileIOHandler(file));
}

function feedOf(manifest: ModelManifest, input: InputTensor): InstanceType<typeof ort.Tensor> {
  return manifest.inputType === 'int32' ? new ort.Tensor('int32', Int32Array.from(input.data), input.dims) : new ort.Tensor('float32', input.data, input.dims);
}

/** MoveNet takes sides that are multiples of 32 (person-models.ts pads the same way). */
function paddedTo32(img: RgbImage): RgbImage {
  const width = Math.ceil(img.width / 32) * 32;
  const height = Math.ceil(img.height / 32) * 32;
  const out = { data: new Uint8Array(width * height * 3), width, height };
  for (let y = 0; y < img.height; y++) out.data.set(img.data.subarray(y * img.width * 3, (y + 1) * img.width * 3), y * width * 3);
  return out;
}

async function modelRows(photo: RgbImage): Promise<(string | number)[][]> {
  const tf = await tfjs();
  const rows: (string | number)[][] = [];
  for (const stage of STAGES) {
    const manifest = resolveManifest(stage);
    const image = stage === 'face-attributes' ? resizeRgb(photo, 224, 224) : stage === 'person-pose' ? paddedTo32(limitSide(photo, 256)) : photo;
    const input = manifestInput([image], manifest);
    const graph = await tfjsGraph(manifest.file);
    const x = manifest.inputType === 'int32' ? tf.tensor(Int32Array.from(input.data), input.dims, 'int32') : tf.tensor(input.data, input.dims);
    const tfMs = await timeIt(Math.min(RUNS, 5), async () => {
      const out = (await graph.executeAsync(x, manifest.outputNames)) as tfTypes.Tensor | tfTypes.Tensor[];
      const list = Array.isArray(out) ? out : [out];
      await Promise.all(list.map((t) => t.data()));
      tf.dispose(list);
    });
    x.dispose();
    graph.dispose();
    // The floor keeps ONNX Runtime's memory arena, which production turns off (onnx-session.ts): the production
    // column is then the arena's absence and the input preparation together.
    const session = await ort.InferenceSession.create(convertedModel({ file: manifest.file, outputs: manifest.outputNames! }).bytes, { ...sessionOptions(), enableCpuMemArena: true });
    const feed = { [session.inputNames[0]!]: feedOf(manifest, input) };
    const floor = await timeIt(RUNS, () => session.run(feed));
    const model = await loadManifestModel(manifest);
    const call = await timeIt(RUNS, () => model.run(manifestInput([image], manifest)));
    rows.push([`${stage} (${input.dims.slice(1, 3).join('×')})`, tfMs, floor, call, tfMs / call]);
  }
  return rows;
}

/** The photo's view in the `general` scenario, as the embedder renders it (shorter side 224, the longer a multiple of 32). */
function generalView(photo: RgbImage): Promise<RgbImage> {
  return renderView(photo, scenarioViews('general')[0]!);
}

async function embeddingRows(view: RgbImage): Promise<(string | number)[][]> {
  const tf = await tfjs();
  const graph = await tfjsGraph(resolveManifest('porn-classifier').file, true);
  const x = tf.tidy(() => tf.tensor4d(view.data, [1, view.height, view.width, 3], 'int32').toFloat().div(255));
  const tfMs = await timeIt(Math.min(RUNS, 5), async () => {
    const out = graph.execute(x, [...EMBEDDING_OUTPUTS]) as tfTypes.Tensor[];
    await Promise.all(out.map((t) => t.data()));
    tf.dispose(out);
  });
  tf.dispose([x]);
  graph.dispose();
  const rows: (string | number)[][] = [['TFJS wasm, batch 1', tfMs]];
  // Float and int8 alternate run by run, so both see the same load; the ratio is the reliable figure.
  // The three maps the embedder reads (EMBEDDING_OUTPUTS), as in serving.
  const float = await convertedSession(backboneSpec([...EMBEDDING_OUTPUTS]));
  const int8 = await backboneSession([...EMBEDDING_OUTPUTS], 'int8');
  for (const batch of [1, 8]) {
    const x = backboneInput(Array.from({ length: batch }, () => view));
    const times = { float: [] as number[], int8: [] as number[] };
    for (let i = 0; i < RUNS + 2; i++) {
      for (const [key, session] of [['float', float], ['int8', int8]] as const) {
        const t = performance.now();
        await session.run({ [session.inputNames[0]!]: x });
        if (i >= 2) times[key].push((performance.now() - t) / batch);
      }
    }
    const [f, q] = [median(times.float), median(times.int8)];
    rows.push([`ONNX Runtime float (floor: bare session), batch ${batch}`, f], [`ONNX Runtime int8 QDQ (bare session), batch ${batch}`, q], [`  float / int8, batch ${batch}`, f / q]);
  }
  return rows;
}

async function jpegs(photo: RgbImage, count: number): Promise<Buffer[]> {
  // Distinct JPEGs (shifted crops) so nothing is served from a cache.
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      sharp(Buffer.from(photo.data), { raw: { width: photo.width, height: photo.height, channels: 3 } })
        .extract({ left: i % 16, top: (i * 3) % 16, width: photo.width - 16, height: photo.height - 16 })
        .resize(640, 480, { fit: 'fill' })
        .jpeg({ quality: 85 })
        .toBuffer(),
    ),
  );
}

/** The pool rows with the backbone in one precision (worker threads read IRIS_BACKBONE_PRECISION when they start). */
async function poolRows(photo: RgbImage, precision: 'float' | 'int8'): Promise<(string | number)[][]> {
  const threads = Math.max(1, os.availableParallelism());
  const previous = process.env.IRIS_BACKBONE_PRECISION;
  process.env.IRIS_BACKBONE_PRECISION = precision;
  const pool = new InferencePool(threads);
  if (previous === undefined) delete process.env.IRIS_BACKBONE_PRECISION;
  else process.env.IRIS_BACKBONE_PRECISION = previous;
  const images = await jpegs(photo, 64);
  const server = http.createServer((req, res) => {
    const body = images[Number(req.url?.slice(1)) % images.length]!;
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rows: (string | number)[][] = [];
  try {
    await Promise.all(Array.from({ length: threads * 2 }, (_, i) => pool.run('embed', { image: images[i] })));
    const embedInteractive = (i: number) => pool.run('embed', { image: images[i % images.length] }, { priority: 'interactive' });
    const idle = await timeIt(RUNS, () => embedInteractive(0));
    rows.push(['interactive embed, idle pool: p50 ms', idle]);
    // Background throughput with batching: everything queued at once.
    const total = 256;
    const before = pool.batchedJobs;
    let t = performance.now();
    await Promise.all(Array.from({ length: total }, (_, i) => pool.run('embed', { image: images[i % images.length] }, { priority: 'background' })));
    const rate = total / ((performance.now() - t) / 1000);
    rows.push([`background embed, ${threads} threads, batched (${pool.batchedJobs - before} of ${total} jobs in batches): images/s`, rate]);
    // Ingest from loopback: download + decode + embed, 32 downloads in flight.
    let next = 0;
    t = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < total) {
          const i = next++;
          const bytes = new Uint8Array(await (await fetch(`${base}/${i}`)).arrayBuffer());
          await pool.run('embed', { image: bytes }, { priority: 'background' });
        }
      }),
    );
    rows.push([`ingest of 640×480 JPEGs from loopback HTTP (download + decode + embed), ${threads} threads: images/s`, total / ((performance.now() - t) / 1000)]);
    // Interactive latency while a background batch of 256 images runs.
    const background = Promise.all(Array.from({ length: total }, (_, i) => pool.run('embed', { image: images[i % images.length] }, { priority: 'background' })));
    const busy = await timeIt(RUNS, () => embedInteractive(1));
    await background;
    rows.push(['interactive embed while 256 background embeds run: p50 ms', busy]);
    rows.push(['  ratio busy / idle (target ≤ 1.3)', busy / idle]);
  } finally {
    server.close();
    await pool.close();
  }
  return rows;
}

export default async function run(): Promise<void> {
  const photo = await realPhoto('samples.jpg', 640);
  console.log(`Load average at start ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores (shared machine: compare columns of one run, not runs).\n`);
  printTable(['model (input)', 'TFJS wasm ms', 'ONNX floor: bare session ms', 'ONNX production call ms', 'speed-up vs TFJS'], await modelRows(photo));
  console.log('One thread each, batch 1, median of timed runs after 2 warm-ups; the production call includes resizing and tensor preparation.\n');
  const view = await generalView(photo);
  printTable([`embedding backbone, ${view.width}×${view.height} view (the ${photo.width}×${photo.height} photo's, scenario general)`, 'ms per image, 1 thread'], await embeddingRows(view));
  const [float, int8] = [await poolRows(photo, 'float'), await poolRows(photo, 'int8')];
  printTable(['pool (embed task: decode + views + backbone + pooling + whitening)', 'float backbone', 'int8 backbone'], float.map((row, i) => [row[0]!, row[1]!, int8[i]![1]!]));
  console.log(`Load average at the end ${os.loadavg()[0]!.toFixed(1)}.`);
}
