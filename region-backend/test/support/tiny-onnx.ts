/**
 * Writes small ONNX models byte by byte (protobuf wire format, only the fields a plain graph needs), so tests
 * can prove a stage runs an operator-supplied ONNX file without shipping a binary fixture.
 */

function varint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v > 127) {
    out.push((v & 127) | 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

type Field = number[];
const key = (field: number, wire: number) => varint(field * 8 + wire);
const int = (field: number, value: number): Field => [...key(field, 0), ...varint(value)];
const bytes = (field: number, data: Uint8Array | number[]): Field => [...key(field, 2), ...varint(data.length), ...data];
const str = (field: number, text: string): Field => bytes(field, [...new TextEncoder().encode(text)]);
const msg = (field: number, ...parts: Field[]): Field => bytes(field, parts.flat());

const FLOAT = 1;

function valueInfo(field: number, name: string, dims: number[]): Field {
  const shape = msg(2, ...dims.map((d) => msg(1, int(1, d))));
  return msg(field, str(1, name), msg(2, msg(1, int(1, FLOAT), shape)));
}

function initializer(name: string, dims: number[], values: number[]): Field {
  const raw = new Uint8Array(new Float32Array(values).buffer);
  return msg(5, ...dims.map((d) => int(1, d)), int(2, FLOAT), str(8, name), bytes(9, raw));
}

interface Attr { name: string; int: number }

function node(op: string, inputs: string[], outputs: string[], attrs: Attr[] = []): Field {
  return msg(
    1,
    ...inputs.map((i) => str(1, i)),
    ...outputs.map((o) => str(2, o)),
    str(3, `${op.toLowerCase()}_${outputs[0]}`),
    str(4, op),
    // AttributeProto: name = 1, i = 3, type = 20 (INT = 2).
    ...attrs.map((a) => msg(5, str(1, a.name), int(3, a.int), int(20, 2))),
  );
}

/**
 * A colour classifier: input `[1, 3, H, W]` (NCHW) → global average pool → flatten → `× weights` (`3 × classes`)
 * → softmax → `[1, classes]` probabilities. With weights favouring a channel, pictures dominated by that
 * colour get that class.
 */
export function colourClassifierOnnx(height: number, width: number, weights: number[][]): Uint8Array {
  const classes = weights[0]?.length ?? 0;
  if (weights.length !== 3 || !classes) throw new Error('weights must be 3 rows (R, G, B) of class weights');
  const graph = [
    node('GlobalAveragePool', ['input'], ['pooled']),
    node('Flatten', ['pooled'], ['flat'], [{ name: 'axis', int: 1 }]),
    node('MatMul', ['flat', 'weights'], ['logits']),
    node('Softmax', ['logits'], ['probabilities'], [{ name: 'axis', int: 1 }]),
    str(2, 'colour-classifier'),
    initializer('weights', [3, classes], weights.flat()),
    valueInfo(11, 'input', [1, 3, height, width]),
    valueInfo(12, 'probabilities', [1, classes]),
  ];
  const model = [
    ...int(1, 7), // ir_version
    ...str(2, 'iris-tests'), // producer_name
    ...msg(7, ...graph),
    ...msg(8, str(1, ''), int(2, 13)), // opset_import: default domain, opset 13
  ];
  return Uint8Array.from(model);
}
