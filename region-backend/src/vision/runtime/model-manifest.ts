/**
 * A model manifest describes one model a pipeline stage runs: where the file is, which runtime reads it,
 * how to prepare its input and how to decode its output. Every analysis service is a pipeline of named
 * stages over manifests, so an operator replaces a model by pointing a stage at another manifest
 * (see `modelOverrides` in the backend configuration) without code changes.
 */
import { z } from 'zod';

const labelSchema = z.object({ id: z.string(), en: z.string(), zh: z.string() });

export const modelManifestSchema = z.object({
  name: z.string().min(1),
  runtime: z.enum(['onnx', 'tfjs-graph', 'tfjs-layers']),
  /** Absolute path, a path relative to the manifest file, or `pkg:<package>/<path inside it>`. */
  file: z.string().min(1),
  /** Width and height the model expects. */
  inputSize: z.tuple([z.number().int().positive(), z.number().int().positive()]),
  /**
   * How an image is brought to `inputSize`: `stretch` to exactly that size (aspect ratio not kept), or `fit`
   * inside it keeping the aspect ratio (for models that take any input size, e.g. SSD-style face detectors),
   * or `letterbox`: scaled to fit keeping the aspect ratio, then padded right and bottom with grey (114) to
   * exactly `inputSize` (YOLO exports); detectors' boxes are mapped back from the unpadded part.
   */
  resize: z.enum(['stretch', 'fit', 'letterbox']).default('stretch'),
  /** Element type of the input tensor (`int32` for graphs that take raw 0..255 integers). */
  inputType: z.enum(['float32', 'int32']).default('float32'),
  layout: z.enum(['nhwc', 'nchw']).default('nhwc'),
  colorOrder: z.enum(['rgb', 'bgr']).default('rgb'),
  /** input = (pixel / scale - mean) / std, per channel in `colorOrder`. */
  normalisation: z
    .object({
      scale: z.number().positive().default(255),
      mean: z.tuple([z.number(), z.number(), z.number()]).default([0, 0, 0]),
      std: z.tuple([z.number(), z.number(), z.number()]).default([1, 1, 1]),
    })
    .default({}),
  /** Name of the input tensor (first input when omitted) and of the output(s) to read. */
  inputName: z.string().optional(),
  outputNames: z.array(z.string()).optional(),
  /** Named output decoder and its options, e.g. `{type: "softmax", ...}`; decoders live with the pipelines. */
  output: z.object({ type: z.string().min(1) }).passthrough(),
  labels: z.array(labelSchema).optional(),
  /**
   * Labels from a text file (one per line, in output order; `en<TAB>zh` for both languages), resolved like
   * `file`. Replaces `labels`; e.g. a YOLO export's class list or an ImageNet synset file.
   */
  labelsFile: z.string().min(1).optional(),
  source: z.string().optional(),
  licence: z.string().optional(),
});

export type ModelManifest = z.infer<typeof modelManifestSchema>;
export type ManifestLabel = z.infer<typeof labelSchema>;
