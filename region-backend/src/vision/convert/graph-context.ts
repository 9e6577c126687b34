/**
 * What every op converter works with: the converted values so far (`GraphContext`), a node's inputs and
 * attributes, and TensorFlow dtypes in ONNX terms.
 */
import type { OnnxBuilder, OnnxDtype } from './onnx-builder.js';
import type { TfAttrValue, TfNode } from './tfjs-artifacts.js';

export interface Val {
  /** ONNX value name (empty while a constant has not been materialised). */
  name: string;
  dtype: OnnxDtype;
  /** Known value of a constant (weights), used for attributes and weight layout changes. */
  constant?: { shape: number[]; data: ArrayLike<number> };
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
