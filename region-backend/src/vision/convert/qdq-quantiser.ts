/**
 * Static int8 quantisation of an ONNX model in the QDQ format: every weight of a quantised Conv becomes an
 * int8 initializer (symmetric, one scale per output channel) behind a DequantizeLinear, its bias an int32
 * one (scale = input scale × weight scale), and every activation tensor entering or leaving a quantised node
 * passes through a QuantizeLinear/DequantizeLinear pair (uint8, asymmetric, range from calibration). ONNX
 * Runtime fuses DQ → Conv → Q into QLinearConv and DQ → Add → Q into QLinearAdd; a Relu or Clip between the
 * node and its Q is folded into the Q when the calibrated range lies inside it, so the range of a
 * Conv + Clip pair is taken after the Clip.
 *
 * Two steps around a calibration run (runtime/quantised-model.ts): `calibrationTensors` names the tensors
 * whose ranges are needed (`withOutputs` exposes them as graph outputs), `quantiseModel` rewrites the graph.
 * Works on any graph of standard ops; nodes of other types, and nodes the caller keeps float, stay float.
 */
import onnxProto from 'onnx-proto';
import { DataType } from './onnx-builder.js';

const { onnx } = onnxProto;
type ModelProto = onnxProto.onnx.IModelProto;
type NodeProto = onnxProto.onnx.INodeProto;
type TensorProto = onnxProto.onnx.ITensorProto;
type GraphProto = onnxProto.onnx.IGraphProto;

export interface QuantiseOptions {
  /** Names of nodes to keep float (e.g. the first convolution), or a predicate on the node and its index. */
  keepFloat?: string[] | ((node: NodeProto, index: number) => boolean);
}

export interface TensorRange {
  min: number;
  max: number;
}

export class QuantiseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuantiseError';
  }
}

const ACTIVATIONS = new Set(['Relu', 'Clip']);

export function decodeModel(bytes: Uint8Array): ModelProto {
  return onnx.ModelProto.decode(bytes);
}

/** Float values of an initializer (raw or typed storage). */
export function floatsOf(t: TensorProto): Float32Array {
  if (t.dataType !== DataType.FLOAT) throw new QuantiseError(`${t.name}: initializer is not float`);
  if (t.rawData && t.rawData.length) {
    const copy = new Uint8Array(t.rawData);
    return new Float32Array(copy.buffer, 0, copy.length / 4);
  }
  return Float32Array.from(t.floatData ?? []);
}

function tensor(name: string, dataType: number, dims: number[], bytes: Uint8Array): TensorProto {
  return onnx.TensorProto.create({ name, dataType, dims, rawData: bytes });
}

const bytesOf = (a: Float32Array | Int32Array | Int8Array | Uint8Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

interface GraphIndex {
  initializers: Map<string, TensorProto>;
  consumers: Map<string, NodeProto[]>;
  outputs: Set<string>;
}

function indexGraph(graph: GraphProto): GraphIndex {
  const initializers = new Map((graph.initializer ?? []).map((t) => [t.name!, t]));
  const consumers = new Map<string, NodeProto[]>();
  for (const node of graph.node ?? []) {
    for (const input of node.input ?? []) {
      if (!input) continue;
      consumers.set(input, [...(consumers.get(input) ?? []), node]);
    }
  }
  return { initializers, consumers, outputs: new Set((graph.output ?? []).map((o) => o.name!)) };
}

function isFloatWeight(ix: GraphIndex, name: string | undefined, rank: number): boolean {
  const t = name ? ix.initializers.get(name) : undefined;
  return !!t && t.dataType === DataType.FLOAT && (t.dims ?? []).length === rank;
}

/** Nodes that are quantised: Conv with a constant 4-D weight, Add of two activations; minus those kept float. */
function quantisedNodes(graph: GraphProto, ix: GraphIndex, options: QuantiseOptions): NodeProto[] {
  const keep = options.keepFloat;
  if (Array.isArray(keep)) {
    const names = new Set((graph.node ?? []).map((n) => n.name));
    const missing = keep.filter((k) => !names.has(k));
    if (missing.length) throw new QuantiseError(`nodes to keep float not in the graph: ${missing.join(', ')}`);
  }
  const kept = (node: NodeProto, i: number) => (typeof keep === 'function' ? keep(node, i) : (keep ?? []).includes(node.name ?? ''));
  return (graph.node ?? []).filter((node, i) => {
    if (kept(node, i) || (node.domain ?? '') !== '') return false;
    const inputs = node.input ?? [];
    if (node.opType === 'Conv') return isFloatWeight(ix, inputs[1], 4) && !ix.initializers.has(inputs[0]!) && (!inputs[2] || isFloatWeight(ix, inputs[2], 1));
    if (node.opType === 'Add') return inputs.length === 2 && inputs.every((x) => !ix.initializers.has(x));
    return false;
  });
}

/** The tensor whose range stands for a node's output: after a lone following Relu/Clip (folded into the Q). */
function activationOutput(ix: GraphIndex, output: string): string {
  const users = ix.consumers.get(output) ?? [];
  const only = users[0];
  if (users.length === 1 && !ix.outputs.has(output) && only && ACTIVATIONS.has(only.opType ?? '') && only.input?.[0] === output) return only.output![0]!;
  return output;
}

/** Activation tensors the quantised model needs ranges for, in graph order without repeats. */
export function calibrationTensors(model: ModelProto, options: QuantiseOptions = {}): string[] {
  const graph = model.graph!;
  const ix = indexGraph(graph);
  const names: string[] = [];
  for (const node of quantisedNodes(graph, ix, options)) {
    const inputs = node.opType === 'Conv' ? [node.input![0]!] : node.input!;
    names.push(...inputs, activationOutput(ix, node.output![0]!));
  }
  return [...new Set(names)];
}

/** The model with `tensors` added as (float) graph outputs, for the calibration run. */
export function withOutputs(model: ModelProto, tensors: string[]): Uint8Array {
  const copy = onnx.ModelProto.decode(onnx.ModelProto.encode(model as InstanceType<typeof onnx.ModelProto>).finish());
  const graph = copy.graph!;
  const present = new Set((graph.output ?? []).map((o) => o.name));
  for (const name of tensors) {
    if (present.has(name)) continue;
    graph.output!.push(onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensorType: onnx.TypeProto.Tensor.create({ elemType: DataType.FLOAT }) }) }));
  }
  return onnx.ModelProto.encode(copy).finish();
}

/** uint8 asymmetric parameters of a range (widened to contain 0, as QuantizeLinear requires). */
export function activationParams(range: TensorRange): { scale: number; zeroPoint: number } {
  const min = Math.min(0, range.min);
  const max = Math.max(0, range.max);
  if (!(Number.isFinite(min) && Number.isFinite(max))) throw new QuantiseError('calibration range is not finite');
  const scale = max > min ? (max - min) / 255 : 1;
  return { scale, zeroPoint: Math.min(255, Math.max(0, Math.round(-min / scale))) };
}

/**
 * Weights use 7 bits of the int8 range ([-63, 63]): on x86 CPUs without VNNI, ONNX Runtime multiplies uint8
 * activations by int8 weights with VPMADDUBSW, whose int16 sum of two products saturates above 32767; with
 * |w| ≤ 63 it cannot (2 × 255 × 63 = 32130), so every CPU computes the same integers.
 */
export const WEIGHT_LEVELS = 63;

/**
 * Symmetric per-output-channel quantisation of a weight [M, ...] to ±`WEIGHT_LEVELS`. Each channel's scale is
 * the one of `CLIP_STEPS` candidates (max |w| / levels shrunk by up to half) with the least squared error: a
 * few large weights would otherwise leave the rest of the channel with only a few levels.
 */
export function quantiseWeights(values: Float32Array, channels: number, levels = WEIGHT_LEVELS): { q: Int8Array; scales: Float32Array } {
  const per = values.length / channels;
  const q = new Int8Array(values.length);
  const scales = new Float32Array(channels);
  for (let m = 0; m < channels; m++) {
    const start = m * per;
    let amax = 0;
    for (let i = start; i < start + per; i++) amax = Math.max(amax, Math.abs(values[i]!));
    let best = amax > 0 ? amax / levels : 1;
    if (amax > 0) {
      let bestError = Infinity;
      for (let k = 0; k < CLIP_STEPS; k++) {
        const scale = Math.fround((amax * (1 - k / (2 * CLIP_STEPS))) / levels);
        let error = 0;
        for (let i = start; i < start + per; i++) {
          const v = values[i]!;
          error += (v - Math.max(-levels, Math.min(levels, Math.round(v / scale))) * scale) ** 2;
        }
        if (error < bestError) [bestError, best] = [error, scale];
      }
    }
    scales[m] = best;
    for (let i = start; i < start + per; i++) q[i] = Math.max(-levels, Math.min(levels, Math.round(values[i]! / best)));
  }
  return { q, scales };
}

const CLIP_STEPS = 20;

/** Rewrites the model in QDQ form with the calibrated `ranges` of `calibrationTensors(model, options)`. */
export function quantiseModel(model: ModelProto, ranges: Map<string, TensorRange>, options: QuantiseOptions = {}): Uint8Array {
  const out = onnx.ModelProto.decode(onnx.ModelProto.encode(model as InstanceType<typeof onnx.ModelProto>).finish());
  const graph = out.graph!;
  const ix = indexGraph(graph);
  const nodes = quantisedNodes(graph, ix, options);
  // Readers of a graph input get pointed at its dequantised copy below; the bias needs the input's own name.
  const dataInput = new Map(nodes.map((n) => [n, n.input![0]!]));
  const inits = graph.initializer!;
  const dropped = new Set<string>();
  const head: NodeProto[] = [];
  const after = new Map<NodeProto, NodeProto[]>();
  const scaleOf = new Map<string, number>();
  let count = 0;
  const nodeName = (hint: string) => `qdq/${hint}/${count++}`;

  // Activations: the producer writes `<t>/float`, Q and DQ give `<t>` back to every reader.
  const producers = new Map<string, NodeProto>();
  for (const node of graph.node!) for (const o of node.output ?? []) producers.set(o, node);
  for (const name of calibrationTensors(model, options)) {
    const range = ranges.get(name);
    if (!range) throw new QuantiseError(`no calibration range for ${name}`);
    const { scale, zeroPoint } = activationParams(range);
    scaleOf.set(name, scale);
    inits.push(tensor(`${name}/scale`, DataType.FLOAT, [], bytesOf(Float32Array.of(scale))));
    inits.push(tensor(`${name}/zero_point`, DataType.UINT8, [], Uint8Array.of(zeroPoint)));
    const producer = producers.get(name);
    const qdq = (source: string, target: string) => [
      onnx.NodeProto.create({ opType: 'QuantizeLinear', name: nodeName('q'), input: [source, `${name}/scale`, `${name}/zero_point`], output: [`${name}/q`] }),
      onnx.NodeProto.create({ opType: 'DequantizeLinear', name: nodeName('dq'), input: [`${name}/q`, `${name}/scale`, `${name}/zero_point`], output: [target] }),
    ];
    if (producer) {
      producer.output = producer.output!.map((o) => (o === name ? `${name}/float` : o));
      after.set(producer, [...(after.get(producer) ?? []), ...qdq(`${name}/float`, name)]);
    } else {
      // A graph input: its readers are pointed at the dequantised copy.
      for (const user of ix.consumers.get(name) ?? []) user.input = user.input!.map((x) => (x === name ? `${name}/dq` : x));
      head.push(...qdq(name, `${name}/dq`));
    }
  }

  // Conv weights (per channel, int8) and biases (int32).
  for (const node of nodes.filter((n) => n.opType === 'Conv')) {
    const [, w, b] = node.input!;
    const x = dataInput.get(node)!;
    const weight = ix.initializers.get(w!)!;
    const channels = Number(weight.dims![0]);
    const { q, scales } = quantiseWeights(floatsOf(weight), channels);
    const sx = scaleOf.get(x);
    if (sx === undefined) throw new QuantiseError(`${node.name}: input ${x} has no scale`);
    const wq = `${w}/int8/${count}`;
    inits.push(tensor(wq, DataType.INT8, weight.dims!.map(Number), bytesOf(q)));
    inits.push(tensor(`${wq}/scale`, DataType.FLOAT, [channels], bytesOf(scales)));
    inits.push(tensor(`${wq}/zero_point`, DataType.INT8, [channels], new Uint8Array(channels)));
    head.push(onnx.NodeProto.create({ opType: 'DequantizeLinear', name: nodeName('dqw'), input: [wq, `${wq}/scale`, `${wq}/zero_point`], output: [`${wq}/dq`], attribute: [axis0()] }));
    node.input![1] = `${wq}/dq`;
    dropped.add(w!);
    if (b) {
      const bias = floatsOf(ix.initializers.get(b)!);
      const bscale = Float32Array.from(scales, (s) => s * sx);
      const bq = Int32Array.from(bias, (v, m) => Math.max(-2147483647, Math.min(2147483647, Math.round(v / bscale[m]!))));
      const bn = `${b}/int32/${count}`;
      inits.push(tensor(bn, DataType.INT32, [channels], bytesOf(bq)));
      inits.push(tensor(`${bn}/scale`, DataType.FLOAT, [channels], bytesOf(bscale)));
      inits.push(tensor(`${bn}/zero_point`, DataType.INT32, [channels], new Uint8Array(channels * 4)));
      head.push(onnx.NodeProto.create({ opType: 'DequantizeLinear', name: nodeName('dqb'), input: [bn, `${bn}/scale`, `${bn}/zero_point`], output: [`${bn}/dq`], attribute: [axis0()] }));
      node.input![2] = `${bn}/dq`;
      dropped.add(b);
    }
  }

  // Float initializers still read by a node that is not quantised stay.
  const stillRead = new Set(graph.node!.flatMap((n) => n.input ?? []));
  graph.initializer = inits.filter((t) => !dropped.has(t.name!) || stillRead.has(t.name!));
  graph.node = [...head, ...graph.node!.flatMap((n) => [n, ...(after.get(n) ?? [])])];
  return onnx.ModelProto.encode(out).finish();
}

function axis0(): InstanceType<typeof onnx.AttributeProto> {
  return onnx.AttributeProto.create({ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 });
}
