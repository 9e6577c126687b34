/**
 * Runs a detector stage (any manifest whose output decoder is a detector) on an image, or on regions of it,
 * and answers boxes normalised to the whole image with the manifest's label ids.
 */
import type { RgbImage } from '../../images/rgb-image.js';
import { resolveManifest } from '../../vision/runtime/model-config.js';
import type { Box } from '../../vision/detect/detection.js';
import { decodeDetector } from '../../vision/detect/detector-output.js';
import { loadManifestModel, manifestInput } from '../../vision/runtime/manifest-model.js';
import { cropNormalised, frameRgb, resizeRgb } from '../../vision/runtime/pixels.js';

export interface VisionDetectPayload {
  stage: string;
  /** Stage whose manifest applies when `stage` has neither an override nor a default manifest. */
  fallback?: string;
  image: RgbImage;
  /** Run on these regions (normalised boxes) instead of the whole image, e.g. faces inside person boxes. */
  regions?: Box[];
  /** Regions whose longer side is shorter than this are enlarged to it first (small faces in a crowd). */
  regionMinSide?: number;
  /** Drop detections below this score (on top of the decoder's own threshold). */
  minScore?: number;
  /**
   * Run on the whole picture framed by this margin (a share of its size on every side, edges repeated; see
   * frameRgb) instead of on the picture: a detector trained on scenes finds close-ups and objects cut out
   * edge to edge once they sit inside a frame. Boxes are mapped back onto the picture. Ignored with `regions`.
   */
  margin?: number;
}

export interface LabelledDetection {
  box: Box;
  /** Manifest label id (`class_<n>` when the manifest has no label for the class). */
  label: string;
  score: number;
  /** Index of the region it was found in, when regions were given. */
  region?: number;
}

export interface VisionDetectResult {
  detections: LabelledDetection[];
  model: string;
}

export default async function visionDetect(payload: VisionDetectPayload): Promise<VisionDetectResult> {
  const manifest = resolveManifest(payload.stage, payload.fallback);
  const model = await loadManifestModel(manifest);
  if (payload.margin && !payload.regions) return { detections: await detectFramed(payload, model, manifest), model: manifest.name };
  const regions: (Box | undefined)[] = payload.regions ?? [undefined];
  const out: LabelledDetection[] = [];
  for (const [index, region] of regions.entries()) {
    const { image } = payload;
    const { image: crop, left, top } = region ? cropNormalised(image, region) : { image, left: 0, top: 0 };
    const input = manifestInput([region ? enlarge(crop, payload.regionMinSide) : crop], manifest);
    // Boxes are normalised by the part of the input that holds the image (all of it unless letterboxed).
    const layoutH = input.contentHeight ?? (manifest.layout === 'nchw' ? input.dims[2]! : input.dims[1]!);
    const layoutW = input.contentWidth ?? (manifest.layout === 'nchw' ? input.dims[3]! : input.dims[2]!);
    const outputs = await model.run(input);
    // Boxes are relative to the crop; map them back onto the whole image.
    const rx = crop.width / image.width;
    const ry = crop.height / image.height;
    const ox = left / image.width;
    const oy = top / image.height;
    for (const d of decodeDetector(manifest, outputs, layoutW, layoutH)) {
      if (payload.minScore !== undefined && d.score < payload.minScore) continue;
      out.push({
        box: [ox + d.box[0] * rx, oy + d.box[1] * ry, d.box[2] * rx, d.box[3] * ry],
        label: manifest.labels?.[d.classIndex]?.id ?? `class_${d.classIndex}`,
        score: d.score,
        ...(region ? { region: index } : {}),
      });
    }
  }
  return { detections: out, model: manifest.name };
}

async function detectFramed(
  payload: VisionDetectPayload,
  model: Awaited<ReturnType<typeof loadManifestModel>>,
  manifest: ReturnType<typeof resolveManifest>,
): Promise<LabelledDetection[]> {
  const { image: framed, inner: px } = frameRgb(payload.image, Math.min(2, payload.margin!), Math.max(...manifest.inputSize));
  const input = manifestInput([framed], manifest);
  const layoutH = input.contentHeight ?? (manifest.layout === 'nchw' ? input.dims[2]! : input.dims[1]!);
  const layoutW = input.contentWidth ?? (manifest.layout === 'nchw' ? input.dims[3]! : input.dims[2]!);
  // The picture's part of the frame, normalised to the frame.
  const inner = { x: px.left / framed.width, y: px.top / framed.height, w: px.width / framed.width, h: px.height / framed.height };
  const out: LabelledDetection[] = [];
  for (const d of decodeDetector(manifest, await model.run(input), layoutW, layoutH)) {
    if (payload.minScore !== undefined && d.score < payload.minScore) continue;
    const x0 = Math.max(0, (d.box[0] - inner.x) / inner.w);
    const y0 = Math.max(0, (d.box[1] - inner.y) / inner.h);
    const x1 = Math.min(1, (d.box[0] + d.box[2] - inner.x) / inner.w);
    const y1 = Math.min(1, (d.box[1] + d.box[3] - inner.y) / inner.h);
    // A box wholly on the border found only the repeated edge pixels.
    if (x1 <= x0 || y1 <= y0) continue;
    out.push({ box: [x0, y0, x1 - x0, y1 - y0], label: manifest.labels?.[d.classIndex]?.id ?? `class_${d.classIndex}`, score: d.score });
  }
  return out;
}

function enlarge(img: RgbImage, minSide: number | undefined): RgbImage {
  const side = Math.max(img.width, img.height);
  if (!minSide || side >= minSide) return img;
  const scale = minSide / side;
  return resizeRgb(img, Math.round(img.width * scale), Math.round(img.height * scale));
}
