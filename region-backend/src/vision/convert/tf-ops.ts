/**
 * TensorFlow element-wise, reduction and shape ops → ONNX (opset 17). Tensors keep TensorFlow's layout and
 * dtypes (int32 shape tensors stay int32; ONNX's int64 shape inputs get a Cast or a folded constant).
 */
import { ConvertError, attrBool, attrInt, attrInts, attrOf, tfDtype, type GraphContext, type Val } from './graph-context.js';
import type { OnnxDtype } from './onnx-builder.js';
import { NN_OPS } from './tf-ops-nn.js';
import type { TfNode } from './tfjs-artifacts.js';

type Handler = (ctx: GraphContext, node: TfNode) => void;

const ONNX_TYPE: Record<OnnxDtype, number> = { float32: 1, int32: 6, int64: 7, bool: 9 };

function val(name: string, dtype: OnnxDtype): Val {
  return { name, dtype };
}

function unary(op: string): Handler {
  return (ctx, node) => ctx.set(node, val(ctx.b.op(op, [ctx.inName(node, 0)], {}, node.name), ctx.in(node, 0).dtype));
}

function binary(op: string, out?: OnnxDtype): Handler {
  return (ctx, node) => {
    const dtype = out ?? ctx.in(node, 0).dtype;
    ctx.set(node, val(ctx.b.op(op, [ctx.inName(node, 0), ctx.inName(node, 1)], {}, node.name), dtype));
  };
}

function reduce(op: string): Handler {
  return (ctx, node) => {
    const keepdims = attrBool(node, 'keep_dims') ? 1 : 0;
    const axes = ctx.constOf(node, 1);
    const x = ctx.inName(node, 0);
    // ReduceSum takes its axes as an input from opset 13 on; the others (until opset 18) as an attribute.
    const y = op === 'ReduceSum'
      ? ctx.b.op(op, [x, ctx.b.int64s('axes', axes)], { keepdims }, node.name)
      : ctx.b.op(op, [x], { axes, keepdims }, node.name);
    ctx.set(node, val(y, ctx.in(node, 0).dtype));
  };
}

function scalar(ctx: GraphContext, dtype: OnnxDtype, value: number): string {
  return ctx.b.constant('scalar', dtype, [], [value]);
}

const INT_MAX = 2 ** 31 - 1;

/** StridedSlice with begin/end/stride constants and masks (new axes and shrinks; no ellipsis). */
function stridedSlice(ctx: GraphContext, node: TfNode): void {
  if (attrInt(node, 'ellipsis_mask')) throw new ConvertError(`${node.name}: StridedSlice with an ellipsis is not supported`);
  const begin = ctx.constOf(node, 1);
  const end = ctx.constOf(node, 2);
  const strides = ctx.constOf(node, 3);
  const beginMask = attrInt(node, 'begin_mask');
  const endMask = attrInt(node, 'end_mask');
  const shrink = attrInt(node, 'shrink_axis_mask');
  const newAxis = attrInt(node, 'new_axis_mask');
  const starts: number[] = [], ends: number[] = [], axes: number[] = [], steps: number[] = [], squeeze: number[] = [], unsqueeze: number[] = [];
  let dim = 0; // input dimension the next spec entry applies to
  let outPos = 0; // position in the output
  begin.forEach((_, i) => {
    if (newAxis & (1 << i)) {
      unsqueeze.push(outPos++);
      return;
    }
    const step = strides[i] ?? 1;
    let s = beginMask & (1 << i) ? (step > 0 ? 0 : INT_MAX) : begin[i]!;
    let e = endMask & (1 << i) ? (step > 0 ? INT_MAX : -INT_MAX) : end[i]!;
    if (shrink & (1 << i)) {
      s = begin[i]!;
      e = s === -1 ? INT_MAX : s + 1;
      squeeze.push(dim);
    } else {
      outPos++;
    }
    starts.push(s); ends.push(e); axes.push(dim); steps.push(step);
    dim++;
  });
  const b = ctx.b;
  let y = b.op('Slice', [ctx.inName(node, 0), b.int64s('starts', starts), b.int64s('ends', ends), b.int64s('axes', axes), b.int64s('steps', steps)], {}, node.name);
  if (squeeze.length) y = b.op('Squeeze', [y, b.int64s('axes', squeeze)]);
  if (unsqueeze.length) y = b.op('Unsqueeze', [y, b.int64s('axes', unsqueeze)]);
  ctx.set(node, val(y, ctx.in(node, 0).dtype));
}

function concat(ctx: GraphContext, node: TfNode): void {
  const n = (node.input ?? []).filter((i) => !i.startsWith('^')).length - 1;
  const axis = ctx.constOf(node, n)[0]!;
  const inputs = Array.from({ length: n }, (_, i) => ctx.inName(node, i));
  ctx.set(node, val(ctx.b.op('Concat', inputs, { axis }, node.name), ctx.in(node, 0).dtype));
}

function pack(ctx: GraphContext, node: TfNode): void {
  const n = attrInt(node, 'N');
  const axis = attrInt(node, 'axis');
  const axes = ctx.b.int64s('axes', [axis]);
  const parts = Array.from({ length: n }, (_, i) => ctx.b.op('Unsqueeze', [ctx.inName(node, i), axes]));
  ctx.set(node, val(ctx.b.op('Concat', parts, { axis }, node.name), ctx.in(node, 0).dtype));
}

function unpack(ctx: GraphContext, node: TfNode): void {
  const num = attrInt(node, 'num');
  const axis = attrInt(node, 'axis');
  const parts = ctx.b.node('Split', [ctx.inName(node, 0)], { axis }, num, node.name);
  const axes = ctx.b.int64s('axes', [axis]);
  ctx.set(node, parts.map((p) => val(ctx.b.op('Squeeze', [p, axes]), ctx.in(node, 0).dtype)));
}

function split(ctx: GraphContext, node: TfNode): void {
  const num = attrInt(node, 'num_split');
  const axis = ctx.constOf(node, 0)[0]!;
  const parts = ctx.b.node('Split', [ctx.inName(node, 1)], { axis }, num, node.name);
  ctx.set(node, parts.map((p) => val(p, ctx.in(node, 1).dtype)));
}

function cast(ctx: GraphContext, node: TfNode): void {
  const to = tfDtype(attrOf(node, 'DstT')?.type);
  ctx.set(node, val(ctx.b.op('Cast', [ctx.inName(node, 0)], { to: ONNX_TYPE[to] }, node.name), to));
}

function toInt32(ctx: GraphContext, name: string): string {
  return ctx.b.op('Cast', [name], { to: ONNX_TYPE.int32 });
}

function floorDiv(ctx: GraphContext, node: TfNode): void {
  const dtype = ctx.in(node, 0).dtype;
  const q = ctx.b.op('Div', [ctx.inName(node, 0), ctx.inName(node, 1)], {}, node.name);
  // Integer Div truncates; the pack's graphs only divide non-negative indices, where that equals flooring.
  ctx.set(node, val(dtype === 'float32' ? ctx.b.op('Floor', [q]) : q, dtype));
}

function floorMod(ctx: GraphContext, node: TfNode): void {
  const dtype = ctx.in(node, 0).dtype;
  if (dtype !== 'float32') {
    ctx.set(node, val(ctx.b.op('Mod', [ctx.inName(node, 0), ctx.inName(node, 1)], { fmod: 0 }, node.name), dtype));
    return;
  }
  const [a, b] = [ctx.inName(node, 0), ctx.inName(node, 1)];
  const floored = ctx.b.op('Floor', [ctx.b.op('Div', [a, b])]);
  ctx.set(node, val(ctx.b.op('Sub', [a, ctx.b.op('Mul', [floored, b])], {}, node.name), dtype));
}

const TENSOR_OPS: Record<string, Handler> = {
  Identity: unary('Identity'),
  Relu: unary('Relu'),
  Sigmoid: unary('Sigmoid'),
  Tanh: unary('Tanh'),
  Exp: unary('Exp'),
  Log: unary('Log'),
  Neg: unary('Neg'),
  Abs: unary('Abs'),
  Sqrt: unary('Sqrt'),
  Ceil: unary('Ceil'),
  Floor: unary('Floor'),
  Round: unary('Round'),
  Reciprocal: unary('Reciprocal'),
  Elu: unary('Elu'),
  Relu6: (ctx, node) => ctx.set(node, val(ctx.b.op('Clip', [ctx.inName(node, 0), scalar(ctx, 'float32', 0), scalar(ctx, 'float32', 6)], {}, node.name), 'float32')),
  Rsqrt: (ctx, node) => ctx.set(node, val(ctx.b.op('Reciprocal', [ctx.b.op('Sqrt', [ctx.inName(node, 0)])], {}, node.name), 'float32')),
  Square: (ctx, node) => ctx.set(node, val(ctx.b.op('Mul', [ctx.inName(node, 0), ctx.inName(node, 0)], {}, node.name), ctx.in(node, 0).dtype)),
  Softmax: (ctx, node) => ctx.set(node, val(ctx.b.op('Softmax', [ctx.inName(node, 0)], { axis: -1 }, node.name), 'float32')),
  Add: binary('Add'),
  AddV2: binary('Add'),
  BiasAdd: binary('Add'),
  Sub: binary('Sub'),
  Mul: binary('Mul'),
  RealDiv: binary('Div'),
  Div: binary('Div'),
  Maximum: binary('Max'),
  Minimum: binary('Min'),
  Pow: binary('Pow'),
  Greater: binary('Greater', 'bool'),
  GreaterEqual: binary('GreaterOrEqual', 'bool'),
  Less: binary('Less', 'bool'),
  LessEqual: binary('LessOrEqual', 'bool'),
  Equal: binary('Equal', 'bool'),
  LogicalAnd: binary('And', 'bool'),
  LogicalOr: binary('Or', 'bool'),
  FloorDiv: floorDiv,
  FloorMod: floorMod,
  SquaredDifference: (ctx, node) => {
    const d = ctx.b.op('Sub', [ctx.inName(node, 0), ctx.inName(node, 1)]);
    ctx.set(node, val(ctx.b.op('Mul', [d, d], {}, node.name), ctx.in(node, 0).dtype));
  },
  AddN: (ctx, node) => {
    const n = attrInt(node, 'N');
    ctx.set(node, val(ctx.b.op('Sum', Array.from({ length: n }, (_, i) => ctx.inName(node, i)), {}, node.name), ctx.in(node, 0).dtype));
  },
  Mean: reduce('ReduceMean'),
  Sum: reduce('ReduceSum'),
  Max: reduce('ReduceMax'),
  Min: reduce('ReduceMin'),
  Prod: reduce('ReduceProd'),
  Cast: cast,
  Reshape: (ctx, node) => ctx.set(node, val(ctx.b.op('Reshape', [ctx.inName(node, 0), ctx.int64Of(node, 1)], {}, node.name), ctx.in(node, 0).dtype)),
  Squeeze: (ctx, node) => {
    const axes = attrInts(node, 'squeeze_dims');
    const inputs = [ctx.inName(node, 0), ...(axes.length ? [ctx.b.int64s('axes', axes)] : [])];
    ctx.set(node, val(ctx.b.op('Squeeze', inputs, {}, node.name), ctx.in(node, 0).dtype));
  },
  ExpandDims: (ctx, node) => ctx.set(node, val(ctx.b.op('Unsqueeze', [ctx.inName(node, 0), ctx.int64Of(node, 1)], {}, node.name), ctx.in(node, 0).dtype)),
  Transpose: (ctx, node) => ctx.set(node, val(ctx.b.op('Transpose', [ctx.inName(node, 0)], { perm: ctx.constOf(node, 1) }, node.name), ctx.in(node, 0).dtype)),
  ConcatV2: concat,
  Pack: pack,
  Unpack: unpack,
  Split: split,
  StridedSlice: stridedSlice,
  Shape: (ctx, node) => ctx.set(node, val(toInt32(ctx, ctx.b.op('Shape', [ctx.inName(node, 0)], {}, node.name)), 'int32')),
  Size: (ctx, node) => ctx.set(node, val(toInt32(ctx, ctx.b.op('Size', [ctx.inName(node, 0)], {}, node.name)), 'int32')),
  Range: (ctx, node) => ctx.set(node, val(ctx.b.op('Range', [0, 1, 2].map((i) => ctx.inName(node, i)), {}, node.name), ctx.in(node, 0).dtype)),
  Tile: (ctx, node) => ctx.set(node, val(ctx.b.op('Tile', [ctx.inName(node, 0), ctx.int64Of(node, 1)], {}, node.name), ctx.in(node, 0).dtype)),
  Fill: (ctx, node) => ctx.set(node, val(ctx.b.op('Expand', [ctx.inName(node, 1), ctx.int64Of(node, 0)], {}, node.name), ctx.in(node, 1).dtype)),
  BroadcastTo: (ctx, node) => ctx.set(node, val(ctx.b.op('Expand', [ctx.inName(node, 0), ctx.int64Of(node, 1)], {}, node.name), ctx.in(node, 0).dtype)),
  Pad: (ctx, node) => {
    // TF paddings [[before, after] per axis] → ONNX [befores..., afters...].
    const paddings = ctx.in(node, 1);
    const b = ctx.b;
    const pads = paddings.constant
      ? b.int64s('pads', ((p) => [...p.filter((_, i) => i % 2 === 0), ...p.filter((_, i) => i % 2 === 1)])(Array.from(paddings.constant.data, Number)))
      : b.op('Reshape', [b.op('Transpose', [ctx.int64Of(node, 1)], { perm: [1, 0] }), b.int64s('flat', [-1])]);
    ctx.set(node, val(b.op('Pad', [ctx.inName(node, 0), pads], {}, node.name), ctx.in(node, 0).dtype));
  },
  GatherV2: (ctx, node) => {
    const axis = ctx.constOf(node, 2)[0]!;
    ctx.set(node, val(ctx.b.op('Gather', [ctx.inName(node, 0), ctx.inName(node, 1)], { axis }, node.name), ctx.in(node, 0).dtype));
  },
  GatherNd: (ctx, node) => ctx.set(node, val(ctx.b.op('GatherND', [ctx.inName(node, 0), ctx.int64Of(node, 1)], {}, node.name), ctx.in(node, 0).dtype)),
  Select: (ctx, node) => ctx.set(node, val(ctx.b.op('Where', [0, 1, 2].map((i) => ctx.inName(node, i)), {}, node.name), ctx.in(node, 1).dtype)),
  SelectV2: (ctx, node) => ctx.set(node, val(ctx.b.op('Where', [0, 1, 2].map((i) => ctx.inName(node, i)), {}, node.name), ctx.in(node, 1).dtype)),
  ArgMax: (ctx, node) => {
    const axis = ctx.constOf(node, 1)[0]!;
    const y = ctx.b.op('ArgMax', [ctx.inName(node, 0)], { axis, keepdims: 0 }, node.name);
    const out = tfDtype(attrOf(node, 'output_type')?.type ?? 'DT_INT64');
    ctx.set(node, val(out === 'int64' ? y : toInt32(ctx, y), out));
  },
  TopKV2: (ctx, node) => {
    const k = ctx.int64Of(node, 1);
    const [values, indices] = ctx.b.node('TopK', [ctx.inName(node, 0), ctx.b.op('Reshape', [k, ctx.b.int64s('one', [1])])], { axis: -1, largest: 1, sorted: 1 }, 2, node.name);
    ctx.set(node, [val(values!, ctx.in(node, 0).dtype), val(toInt32(ctx, indices!), 'int32')]);
  },
};

/** Converts one TensorFlow node into ONNX nodes in `ctx`. */
export function convertNode(ctx: GraphContext, node: TfNode): void {
  const handler = NN_OPS[node.op] ?? TENSOR_OPS[node.op];
  if (!handler) throw new ConvertError(`op ${node.op} (${node.name}) is not supported by the converter`);
  handler(ctx, node);
}

/** Op types the converter handles (besides Const and Placeholder). */
export const SUPPORTED_OPS = [...Object.keys(NN_OPS), ...Object.keys(TENSOR_OPS)].sort();
