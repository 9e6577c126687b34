/**
 * Builds an ONNX model (protobuf, through `onnx-proto`'s generated classes): nodes, initializers, inputs and
 * outputs, then encodes it. Value names are made unique by the builder.
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
export const DataType = onnx.TensorProto.DataType;
export type OnnxDtype = 'float32' | 'int32' | 'int64' | 'bool';

const ELEM: Record<OnnxDtype, number> = {
  float32: DataType.FLOAT,
  int32: DataType.INT32,
  int64: DataType.INT64,
  bool: DataType.BOOL,
};

export type AttrValue = number | string | number[] | { floats: number[] } | { float: number };

/** Opset every converted model declares. */
export const OPSET = 17;

export class OnnxBuilder {
  private readonly nodes: InstanceType<typeof onnx.NodeProto>[] = [];
  private readonly initializers: InstanceType<typeof onnx.TensorProto>[] = [];
  private readonly inputs: InstanceType<typeof onnx.ValueInfoProto>[] = [];
  private readonly outputs: InstanceType<typeof onnx.ValueInfoProto>[] = [];
  private readonly used = new Set<string>();
  private counter = 0;

  /** A fresh value name based on `hint`. */
  name(hint: string): string {
    let name = hint;
    while (this.used.has(name)) name = `${hint}__${++this.counter}`;
    this.used.add(name);
    return name;
  }

  /** Adds a node; answers its output names (`outputs` fresh names by default). */
  node(op: string, inputs: string[], attrs: Record<string, AttrValue> = {}, outputs: number | string[] = 1, hint = op): string[] {
    const outs = typeof outputs === 'number' ? Array.from({ length: outputs }, (_, i) => this.name(`${hint}:${i}`)) : outputs;
    const attribute = Object.entries(attrs).map(([name, value]) => attr(name, value));
    this.nodes.push(onnx.NodeProto.create({ opType: op, input: inputs, output: outs, name: this.name(`node:${hint}`), attribute }));
    return outs;
  }

  /** One-output node. */
  op(op: string, inputs: string[], attrs: Record<string, AttrValue> = {}, hint = op): string {
    return this.node(op, inputs, attrs, 1, hint)[0]!;
  }

  constant(hint: string, dtype: OnnxDtype, dims: number[], values: ArrayLike<number> | ArrayLike<bigint>): string {
    const name = this.name(hint);
    const tensor = onnx.TensorProto.create({ name, dims, dataType: ELEM[dtype] });
    const bytes =
      dtype === 'float32' ? new Uint8Array(Float32Array.from(values as ArrayLike<number>).buffer)
      : dtype === 'int32' ? new Uint8Array(Int32Array.from(values as ArrayLike<number>).buffer)
      : dtype === 'int64' ? new Uint8Array(BigInt64Array.from(Array.from(values as ArrayLike<number>, (v) => BigInt(v))).buffer)
      : Uint8Array.from(values as ArrayLike<number>, (v) => (v ? 1 : 0));
    tensor.rawData = bytes;
    this.initializers.push(tensor);
    return name;
  }

  int64s(hint: string, values: number[]): string {
    return this.constant(hint, 'int64', [values.length], values);
  }

  input(name: string, dtype: OnnxDtype, dims: (number | string)[]): void {
    this.used.add(name);
    this.inputs.push(valueInfo(name, dtype, dims));
  }

  output(name: string, dtype: OnnxDtype): void {
    this.outputs.push(valueInfo(name, dtype, null));
  }

  encode(graphName: string, docString: string): Uint8Array {
    const graph = onnx.GraphProto.create({
      name: graphName,
      node: this.nodes,
      initializer: this.initializers,
      input: this.inputs,
      output: this.outputs,
    });
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: 'iris-tfjs-to-onnx',
      producerVersion: '1',
      docString,
      opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: OPSET })],
      graph,
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

function valueInfo(name: string, dtype: OnnxDtype, dims: (number | string)[] | null): InstanceType<typeof onnx.ValueInfoProto> {
  const shape = dims
    ? onnx.TensorShapeProto.create({
        dim: dims.map((d) => (typeof d === 'number' ? onnx.TensorShapeProto.Dimension.create({ dimValue: d }) : onnx.TensorShapeProto.Dimension.create({ dimParam: d }))),
      })
    : undefined;
  return onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensorType: onnx.TypeProto.Tensor.create({ elemType: ELEM[dtype], ...(shape ? { shape } : {}) }) }) });
}

function attr(name: string, value: AttrValue): InstanceType<typeof onnx.AttributeProto> {
  const T = onnx.AttributeProto.AttributeType;
  if (typeof value === 'string') return onnx.AttributeProto.create({ name, type: T.STRING, s: new TextEncoder().encode(value) });
  if (typeof value === 'number') return onnx.AttributeProto.create({ name, type: T.INT, i: value });
  if (Array.isArray(value)) return onnx.AttributeProto.create({ name, type: T.INTS, ints: value });
  if ('floats' in value) return onnx.AttributeProto.create({ name, type: T.FLOATS, floats: value.floats });
  return onnx.AttributeProto.create({ name, type: T.FLOAT, f: value.float });
}
