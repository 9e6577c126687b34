/**
 * Converts a TFJS graph model (TensorFlow GraphDef nodes + weights) into an ONNX model, cut at the named
 * outputs: only the nodes those outputs depend on are converted, so in-graph post-processing (TopK, NMS
 * loops, TensorArrays) past the cut is left to the TypeScript decoders. Tensors keep TensorFlow's NHWC
 * layout; spatial ops (convolutions, pooling, resizing) are wrapped in transposes to ONNX's NCHW, and ONNX
 * Runtime's transpose optimiser removes the pairs that cancel.
 */
import { ConvertError, GraphContext, attrOf, dataInputs, tensorId, tfDtype } from './graph-context.js';
import { OnnxBuilder } from './onnx-builder.js';
import { convertNode } from './tf-ops.js';
import type { TfGraph, TfNode } from './tfjs-artifacts.js';

export interface ConvertOptions {
  /** Outputs to produce (`node` or `node:k`); the graph is cut there. */
  outputs: string[];
  /** Overrides the placeholder's shape: a number fixes a dimension, null leaves it free. */
  inputShape?: (number | null)[];
  /** Text stored in the model (source, hashes). */
  doc?: string;
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
