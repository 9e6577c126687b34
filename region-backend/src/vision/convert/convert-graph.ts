/**
 * Converts a TFJS graph model (TensorFlow GraphDef nodes + weights) into an ONNX model, cut at the named
 * outputs: only the nodes those outputs depend on are converted, so in-graph post-processing (TopK, NMS
 * loops, TensorArrays) past the cut is left to the TypeScript decoders. Tensors keep TensorFlow's NHWC
 * layout; spatial ops (convolutions, pooling, resizing) are wrapped in transposes to ONNX's NCHW, and ONNX
 * Runtime's transpose optimiser removes the pairs that cancel.
 */
import { OnnxBuilder, type OnnxDtype } from './onnx-builder.js';
import { convertNode } from './tf-ops.js';
import type { TfAttrValue, TfGraph, TfNode } from './tfjs-artifacts.js';

export interface Val {
  /** ONNX value name (empty while a constant has not been materialised). */
  name: string;
  dtype: OnnxDtype;
  /** Known value of a constant (weights), used for attributes and weight layout changes. */
  constant?: { shape: number[]; data: ArrayLike<number> };
}

export interface ConvertOptions {
  /** Outputs to produce (`node` or `node:k`); the graph is cut there. */
  outputs: string[];
  /** Overrides the placeholder's shape: a number fixes a dimension, null leaves it free. */
  inputShape?: (number | null)[];
  /** Text stored in the model (source, hashes). */
  doc?: string;
}

export class ConvertError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConvertError';
  }
}

export function tensorId(ref: string): string {
  return ref.includes(':') ? ref : `${ref}:0`;
}

/** Context handed to every op converter. */
export class GraphContext {
  readonly values = new Map<string, Val>();
  constructor(readonly b: OnnxBuilder) {}

  /** Input `i` of a node (control inputs excluded). */
  in(node: TfNode, i: number): Val {
    const ref = dataInputs(node)[i];
    if (ref === undefined) throw new ConvertError(`${node.op} ${node.name}: missing input ${i}`);
    const v = this.values.get(tensorId(ref));
    if (!v) throw new ConvertError(`${node.op} ${node.name}: input ${ref} was not converted`);
    return v;
  }

  /** ONNX name of an input, materialising a constant as an initializer on first use. */
  name(v: Val, hint = 'const'): string {
    if (v.name) return v.name;
    const c = v.constant!;
    v.name = this.b.constant(hint, v.dtype, c.shape, c.data);
    return v.name;
  }

  inName(node: TfNode, i: number): string {
    return this.name(this.in(node, i), dataInputs(node)[i]);
  }

  /** The constant value of input `i` (attributes such as axes, shapes, paddings). */
  constOf(node: TfNode, i: number): number[] {
    const v = this.in(node, i);
    if (!v.constant) throw new ConvertError(`${node.op} ${node.name}: input ${i} must be a constant`);
    return Array.from(v.constant.data, Number);
  }

  /** An input as int64 (ONNX shape-like inputs), folding constants. */
  int64Of(node: TfNode, i: number): string {
    const v = this.in(node, i);
    if (v.constant) return this.b.int64s(`${node.name}/i64`, Array.from(v.constant.data, Number));
    return v.dtype === 'int64' ? v.name : this.b.op('Cast', [v.name], { to: 7 });
  }

  set(node: TfNode, outputs: Val[] | Val): void {
    const list = Array.isArray(outputs) ? outputs : [outputs];
    list.forEach((v, k) => this.values.set(`${node.name}:${k}`, v));
  }
}

export function dataInputs(node: TfNode): string[] {
  return (node.input ?? []).filter((i) => !i.startsWith('^'));
}

export function attrOf(node: TfNode, key: string): TfAttrValue | undefined {
  return node.attr?.[key];
}

export function attrString(node: TfNode, key: string): string | undefined {
  const s = attrOf(node, key)?.s;
  return s === undefined ? undefined : Buffer.from(s, 'base64').toString('utf8');
}

export function attrInts(node: TfNode, key: string): number[] {
  return (attrOf(node, key)?.list?.i ?? []).map(Number);
}

export function attrInt(node: TfNode, key: string, fallback = 0): number {
  const i = attrOf(node, key)?.i;
  return i === undefined ? fallback : Number(i);
}

export function attrBool(node: TfNode, key: string): boolean {
  return attrOf(node, key)?.b === true;
}

export function tfDtype(type: string | undefined): OnnxDtype {
  switch (type) {
    case 'DT_INT32':
    case 'DT_UINT8': // TFJS has no uint8: such inputs are fed as int32, so the conversion takes int32 too
      return 'int32';
    case 'DT_INT64':
      return 'int64';
    case 'DT_BOOL':
      return 'bool';
    default:
      return 'float32';
  }
}

/** Nodes the outputs depend on, in an order where every node follows its inputs. */
function neededNodes(graph: TfGraph, outputs: string[]): TfNode[] {
  const byName = new Map(graph.nodes.map((n) => [n.name, n]));
  const order: TfNode[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: { node: TfNode; next: number }[] = [];
  for (const out of outputs) {
    const root = byName.get(out.split(':')[0]!);
    if (!root) throw new ConvertError(`output ${out} is not a node of the graph`);
    if (state.get(root.name)) continue;
    stack.push({ node: root, next: 0 });
    state.set(root.name, 'visiting');
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const inputs = dataInputs(top.node);
      if (top.next < inputs.length) {
        const dep = byName.get(inputs[top.next++]!.split(':')[0]!);
        if (!dep) throw new ConvertError(`${top.node.name}: input node not found`);
        const s = state.get(dep.name);
        if (s === 'visiting') throw new ConvertError(`${dep.name}: the graph has a cycle below the cut (control flow is not converted)`);
        if (!s) {
          state.set(dep.name, 'visiting');
          stack.push({ node: dep, next: 0 });
        }
      } else {
        state.set(top.node.name, 'done');
        order.push(top.node);
        stack.pop();
      }
    }
  }
  return order;
}

/** Converts the part of `graph` that `options.outputs` depend on; answers the encoded ONNX model. */
export function convertGraph(graph: TfGraph, options: ConvertOptions): Uint8Array {
  const b = new OnnxBuilder();
  const ctx = new GraphContext(b);
  for (const node of neededNodes(graph, options.outputs)) {
    if (node.op === 'Const') {
      const w = graph.weights.get(node.name);
      if (!w) throw new ConvertError(`Const ${node.name} has no weight data`);
      ctx.set(node, { name: '', dtype: w.dtype, constant: { shape: w.shape, data: w.data } });
    } else if (node.op === 'Placeholder') {
      const dims = (attrOf(node, 'shape')?.shape?.dim ?? []).map((d) => Number(d.size));
      const shape = dims.map((d, i) => {
        const o = options.inputShape?.[i];
        if (o === null || (o === undefined && d < 0)) return `d${i}`;
        return o ?? d;
      });
      const dtype = tfDtype(attrOf(node, 'dtype')?.type);
      b.input(node.name, dtype, shape);
      ctx.set(node, { name: node.name, dtype });
    } else {
      convertNode(ctx, node);
    }
  }
  for (const out of options.outputs) {
    const v = ctx.values.get(tensorId(out));
    if (!v) throw new ConvertError(`output ${out} was not produced`);
    b.node('Identity', [ctx.name(v)], {}, [out]);
    b.output(out, v.dtype);
  }
  return b.encode('converted', options.doc ?? '');
}
