/**
 * TensorFlow spatial ops (NHWC) → ONNX (NCHW inside a transpose pair): convolutions with their fused bias
 * and activation, depthwise and transposed convolutions, pooling, bilinear resizing, matrix products.
 * Weights are re-laid out at conversion time, so no transpose runs on them at inference.
 */
import { ConvertError, attrBool, attrInts, attrOf, attrString, type GraphContext, type Val } from './graph-context.js';
import type { TfNode } from './tfjs-artifacts.js';

const TO_NCHW = [0, 3, 1, 2];
const TO_NHWC = [0, 2, 3, 1];

function fusedOps(node: TfNode): string[] {
  return (attrOf(node, 'fused_ops')?.list?.s ?? []).map((s) => Buffer.from(s, 'base64').toString('utf8'));
}

function padding(node: TfNode, kernel: [number, number]): Record<string, string | number[]> {
  const mode = attrString(node, 'padding');
  if (mode === 'SAME') return { auto_pad: 'SAME_UPPER' };
  if (mode === 'VALID') return { pads: [0, 0, 0, 0] };
  if (mode === 'EXPLICIT') {
    const p = attrInts(node, 'explicit_paddings'); // [n0,n1,h0,h1,w0,w1,c0,c1] in NHWC
    return { pads: [p[2]!, p[4]!, p[3]!, p[5]!] };
  }
  throw new ConvertError(`${node.op} ${node.name}: padding ${mode} with kernel ${kernel} is not supported`);
}

function checkNhwc(node: TfNode): void {
  const format = attrString(node, 'data_format');
  if (format && format !== 'NHWC') throw new ConvertError(`${node.op} ${node.name}: data_format ${format} is not supported`);
}

function hw(list: number[]): [number, number] {
  return [list[1] ?? 1, list[2] ?? 1];
}

/** Applies fused activations in NCHW (before transposing back), so ONNX Runtime fuses them into the conv. */
function activate(ctx: GraphContext, node: TfNode, x: string, activation: string | undefined, extraArg?: Val): string {
  const b = ctx.b;
  switch (activation) {
    case undefined:
      return x;
    case 'Relu':
      return b.op('Relu', [x]);
    case 'Relu6':
      return b.op('Clip', [x, b.constant('zero', 'float32', [], [0]), b.constant('six', 'float32', [], [6])]);
    case 'Elu':
      return b.op('Elu', [x]);
    case 'Sigmoid':
      return b.op('Sigmoid', [x]);
    case 'LeakyRelu':
      return b.op('LeakyRelu', [x], { alpha: { float: attrOf(node, 'leakyrelu_alpha')?.f ?? 0.2 } });
    case 'Prelu': {
      const slope = extraArg?.constant;
      if (!slope) throw new ConvertError(`${node.name}: Prelu needs constant slopes`);
      return b.op('PRelu', [x, b.constant('slope', 'float32', [slope.data.length, 1, 1], slope.data)]);
    }
    default:
      throw new ConvertError(`${node.op} ${node.name}: fused activation ${activation} is not supported`);
  }
}

/** Conv2D filter [kh, kw, in, out] → ONNX [out, in, kh, kw]. */
function convWeight(f: { shape: number[]; data: ArrayLike<number> }): { dims: number[]; data: Float32Array } {
  const [kh, kw, cin, cout] = f.shape as [number, number, number, number];
  const out = new Float32Array(f.data.length);
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let i = 0; i < cin; i++)
        for (let o = 0; o < cout; o++) out[((o * cin + i) * kh + y) * kw + x] = f.data[((y * kw + x) * cin + i) * cout + o]!;
  return { dims: [cout, cin, kh, kw], data: out };
}

/** Depthwise filter [kh, kw, in, mult] → ONNX [in * mult, 1, kh, kw] (group = in). */
function depthwiseWeight(f: { shape: number[]; data: ArrayLike<number> }): { dims: number[]; data: Float32Array; group: number } {
  const [kh, kw, cin, mult] = f.shape as [number, number, number, number];
  const out = new Float32Array(f.data.length);
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let i = 0; i < cin; i++)
        for (let m = 0; m < mult; m++) out[((i * mult + m) * kh + y) * kw + x] = f.data[((y * kw + x) * cin + i) * mult + m]!;
  return { dims: [cin * mult, 1, kh, kw], data: out, group: cin };
}

function conv(ctx: GraphContext, node: TfNode, depthwise: boolean, fused: boolean): void {
  checkNhwc(node);
  const filter = ctx.in(node, 1).constant;
  if (!filter) throw new ConvertError(`${node.op} ${node.name}: the filter must be a constant`);
  const w = depthwise ? depthwiseWeight(filter) : { ...convWeight(filter), group: 1 };
  const ops = fused ? fusedOps(node) : [];
  const inputs = [ctx.b.op('Transpose', [ctx.inName(node, 0)], { perm: TO_NCHW }), ctx.b.constant(`${node.name}/W`, 'float32', w.dims, w.data)];
  let rest = ops;
  if (ops[0] === 'BiasAdd') {
    inputs.push(ctx.inName(node, 2));
    rest = ops.slice(1);
  } else if (ops.length && ops[0] !== undefined) {
    throw new ConvertError(`${node.op} ${node.name}: fused ops ${ops.join('+')} are not supported`);
  }
  if (rest.length > 1) throw new ConvertError(`${node.op} ${node.name}: fused ops ${ops.join('+')} are not supported`);
  const kernel: [number, number] = [w.dims[2]!, w.dims[3]!];
  const y = ctx.b.op('Conv', inputs, { strides: hw(attrInts(node, 'strides')), dilations: hw(attrInts(node, 'dilations')), group: w.group, kernel_shape: kernel, ...padding(node, kernel) }, node.name);
  const prelu = rest[0] === 'Prelu' ? ctx.in(node, 3) : undefined;
  const z = activate(ctx, node, y, rest[0], prelu);
  ctx.set(node, { name: ctx.b.op('Transpose', [z], { perm: TO_NHWC }), dtype: 'float32' });
}

function pool(ctx: GraphContext, node: TfNode, op: 'MaxPool' | 'AveragePool'): void {
  checkNhwc(node);
  const kernel = hw(attrInts(node, 'ksize'));
  const x = ctx.b.op('Transpose', [ctx.inName(node, 0)], { perm: TO_NCHW });
  const y = ctx.b.op(op, [x], { kernel_shape: kernel, strides: hw(attrInts(node, 'strides')), ...padding(node, kernel) }, node.name);
  ctx.set(node, { name: ctx.b.op('Transpose', [y], { perm: TO_NHWC }), dtype: 'float32' });
}

function resize(ctx: GraphContext, node: TfNode, mode: 'linear' | 'nearest'): void {
  const b = ctx.b;
  const x = b.op('Transpose', [ctx.inName(node, 0)], { perm: TO_NCHW });
  const nc = b.op('Slice', [b.op('Shape', [x]), b.int64s('zero', [0]), b.int64s('two', [2])]);
  const sizes = b.op('Concat', [nc, ctx.int64Of(node, 1)], { axis: 0 });
  const alignCorners = attrBool(node, 'align_corners');
  const halfPixel = attrBool(node, 'half_pixel_centers');
  const transform = alignCorners ? 'align_corners' : halfPixel ? (mode === 'nearest' ? 'tf_half_pixel_for_nn' : 'half_pixel') : 'asymmetric';
  const attrs: Record<string, string> = { mode, coordinate_transformation_mode: transform };
  if (mode === 'nearest') attrs.nearest_mode = alignCorners ? 'round_prefer_ceil' : 'floor';
  const y = b.op('Resize', [x, '', '', sizes], attrs, node.name);
  ctx.set(node, { name: b.op('Transpose', [y], { perm: TO_NHWC }), dtype: 'float32' });
}

/** Conv2DBackpropInput(output_shape, filter [kh, kw, out, in], x): a transposed convolution. */
function convTranspose(ctx: GraphContext, node: TfNode): void {
  checkNhwc(node);
  const filter = ctx.in(node, 1).constant;
  if (!filter) throw new ConvertError(`${node.name}: the filter must be a constant`);
  const outShape = ctx.constOf(node, 0);
  const [kh, kw, cout, cin] = filter.shape as [number, number, number, number];
  const data = new Float32Array(filter.data.length); // ONNX [in, out, kh, kw]
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let o = 0; o < cout; o++)
        for (let i = 0; i < cin; i++) data[((i * cout + o) * kh + y) * kw + x] = filter.data[((y * kw + x) * cout + o) * cin + i]!;
  const [sh, sw] = hw(attrInts(node, 'strides'));
  const mode = attrString(node, 'padding');
  const pads = [0, 0, 0, 0];
  const outputPadding = [0, 0];
  const dims: [number, number, number, number][] = [[outShape[1]!, sh, kh, 0], [outShape[2]!, sw, kw, 1]];
  for (const [out, stride, k, axis] of dims) {
    const input = mode === 'SAME' ? Math.ceil(out / stride) : Math.ceil((out - k + 1) / stride);
    const total = stride * (input - 1) + k - out;
    if (total >= 0) {
      pads[axis] = Math.floor(total / 2);
      pads[axis + 2] = total - Math.floor(total / 2);
    } else {
      outputPadding[axis] = -total;
    }
  }
  const x = ctx.b.op('Transpose', [ctx.inName(node, 2)], { perm: TO_NCHW });
  const w = ctx.b.constant(`${node.name}/W`, 'float32', [cin, cout, kh, kw], data);
  const y = ctx.b.op('ConvTranspose', [x, w], { strides: [sh, sw], kernel_shape: [kh, kw], pads, output_padding: outputPadding }, node.name);
  ctx.set(node, { name: ctx.b.op('Transpose', [y], { perm: TO_NHWC }), dtype: 'float32' });
}

function matMul(ctx: GraphContext, node: TfNode, fused: boolean): void {
  const b = ctx.b;
  const ta = attrBool(node, 'transpose_a');
  const tb = attrBool(node, 'transpose_b');
  const a = ta ? b.op('Transpose', [ctx.inName(node, 0)], { perm: [1, 0] }) : ctx.inName(node, 0);
  const w = tb ? b.op('Transpose', [ctx.inName(node, 1)], { perm: [1, 0] }) : ctx.inName(node, 1);
  let y = b.op('MatMul', [a, w], {}, node.name);
  const ops = fused ? fusedOps(node) : [];
  let rest = ops;
  if (ops[0] === 'BiasAdd') {
    y = b.op('Add', [y, ctx.inName(node, 2)]);
    rest = ops.slice(1);
  }
  if (rest.length > 1) throw new ConvertError(`${node.name}: fused ops ${ops.join('+')} are not supported`);
  if (rest[0] === 'Prelu') {
    const slope = ctx.in(node, 3).constant!;
    y = b.op('PRelu', [y, b.constant('slope', 'float32', [slope.data.length], slope.data)]);
  } else {
    y = activate(ctx, node, y, rest[0]);
  }
  ctx.set(node, { name: y, dtype: 'float32' });
}

export const NN_OPS: Record<string, (ctx: GraphContext, node: TfNode) => void> = {
  Conv2D: (c, n) => conv(c, n, false, false),
  _FusedConv2D: (c, n) => conv(c, n, false, true),
  DepthwiseConv2dNative: (c, n) => conv(c, n, true, false),
  FusedDepthwiseConv2dNative: (c, n) => conv(c, n, true, true),
  Conv2DBackpropInput: convTranspose,
  MaxPool: (c, n) => pool(c, n, 'MaxPool'),
  AvgPool: (c, n) => pool(c, n, 'AveragePool'),
  ResizeBilinear: (c, n) => resize(c, n, 'linear'),
  ResizeNearestNeighbor: (c, n) => resize(c, n, 'nearest'),
  MatMul: (c, n) => matMul(c, n, false),
  _FusedMatMul: (c, n) => matMul(c, n, true),
};
