/**
 * Brute-force Hamming nearest neighbours in WebAssembly SIMD (`i8x16.popcnt`): about an order of magnitude
 * faster than 32-bit JavaScript popcounts, so matching cost per reference image stays small. The module is
 * tiny and assembled here from its instructions (listed below as WAT); when the runtime has no SIMD the
 * caller falls back to the JavaScript implementation.
 *
 *   (func (export "knn") (param $q i32) (param $qn i32) (param $r i32) (param $rn i32) (param $out i32)
 *     for each of the $qn 32-byte query descriptors at $q: scan the $rn reference descriptors at $r and write
 *     (best index, best distance, second-best distance) as three i32 at $out, then advance $q by 32 and $out by 12.
 */

// Instruction bytes (WebAssembly core and SIMD opcodes).
const BLOCK = 0x02;
const LOOP = 0x03;
const IF = 0x04;
const ELSE = 0x05;
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const VOID = 0x40;
const GET = 0x20;
const SET = 0x21;
const I32_CONST = 0x41;
const I32_STORE = 0x36;
const I32_ADD = 0x6a;
const I32_LT_U = 0x49;
const I32_GE_U = 0x4f;
const SIMD = 0xfd;
const V128_LOAD = [SIMD, 0x00];
const V128_XOR = [SIMD, 0x51];
const I8X16_POPCNT = [SIMD, 0x62];
const I8X16_ADD = [SIMD, 0x6e];
const I16X8_EXTADD_PAIRWISE_I8X16_U = [SIMD, 0x7d];
const I32X4_EXTADD_PAIRWISE_I16X8_U = [SIMD, 0x7f];
const I32X4_EXTRACT_LANE = [SIMD, 0x1b];

// Locals: parameters 0–4, then i32 locals 5–11 and v128 locals 12–14.
const [Q, QN, R, RN, OUT] = [0, 1, 2, 3, 4];
const [I, J, RP, D, BEST, SECOND, BI] = [5, 6, 7, 8, 9, 10, 11];
const [QA, QB, V] = [12, 13, 14];

function leb(value: number): number[] {
  const out: number[] = [];
  let v = value;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

function uleb(value: number): number[] {
  const out: number[] = [];
  let v = value;
  do {
    const byte = v & 0x7f;
    v >>>= 7;
    out.push(v ? byte | 0x80 : byte);
  } while (v);
  return out;
}

const memarg = (align: number, offset: number) => [...uleb(align), ...uleb(offset)];
const get = (i: number) => [GET, i];
const set = (i: number) => [SET, i];
const i32 = (v: number) => [I32_CONST, ...leb(v)];
const lane = (i: number) => [...I32X4_EXTRACT_LANE, i];

const body = [
  ...i32(0), ...set(I),
  BLOCK, VOID, LOOP, VOID,
  ...get(I), ...get(QN), I32_GE_U, BR_IF, 1,
  ...get(Q), ...V128_LOAD, ...memarg(0, 0), ...set(QA),
  ...get(Q), ...V128_LOAD, ...memarg(0, 16), ...set(QB),
  ...i32(1000), ...set(BEST), ...i32(1000), ...set(SECOND), ...i32(-1), ...set(BI),
  ...get(R), ...set(RP), ...i32(0), ...set(J),
  BLOCK, VOID, LOOP, VOID,
  ...get(J), ...get(RN), I32_GE_U, BR_IF, 1,
  // v = popcnt(qa ^ r[0..16]) + popcnt(qb ^ r[16..32]) per byte (at most 16 per lane)
  ...get(QA), ...get(RP), ...V128_LOAD, ...memarg(0, 0), ...V128_XOR, ...I8X16_POPCNT,
  ...get(QB), ...get(RP), ...V128_LOAD, ...memarg(0, 16), ...V128_XOR, ...I8X16_POPCNT,
  ...I8X16_ADD, ...I16X8_EXTADD_PAIRWISE_I8X16_U, ...I32X4_EXTADD_PAIRWISE_I16X8_U, ...set(V),
  ...get(V), ...lane(0), ...get(V), ...lane(1), I32_ADD, ...get(V), ...lane(2), I32_ADD, ...get(V), ...lane(3), I32_ADD, ...set(D),
  ...get(D), ...get(BEST), I32_LT_U, IF, VOID,
  ...get(BEST), ...set(SECOND), ...get(D), ...set(BEST), ...get(J), ...set(BI),
  ELSE,
  ...get(D), ...get(SECOND), I32_LT_U, IF, VOID, ...get(D), ...set(SECOND), END,
  END,
  ...get(RP), ...i32(32), I32_ADD, ...set(RP),
  ...get(J), ...i32(1), I32_ADD, ...set(J),
  BR, 0, END, END,
  ...get(OUT), ...get(BI), I32_STORE, ...memarg(2, 0),
  ...get(OUT), ...get(BEST), I32_STORE, ...memarg(2, 4),
  ...get(OUT), ...get(SECOND), I32_STORE, ...memarg(2, 8),
  ...get(OUT), ...i32(12), I32_ADD, ...set(OUT),
  ...get(Q), ...i32(32), I32_ADD, ...set(Q),
  ...get(I), ...i32(1), I32_ADD, ...set(I),
  BR, 0, END, END,
  END,
];

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

const I32_TYPE = 0x7f;
const V128_TYPE = 0x7b;
const locals = [2, ...uleb(7), I32_TYPE, ...uleb(3), V128_TYPE];
const code = [...locals, ...body];
const name = [...'knn'].map((c) => c.charCodeAt(0));

const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [1, 0x60, 5, I32_TYPE, I32_TYPE, I32_TYPE, I32_TYPE, I32_TYPE, 0]),
  ...section(3, [1, 0]),
  ...section(5, [1, 0x00, 1]),
  ...section(7, [2, 3, ...name, 0x00, 0, 6, ...[...'memory'].map((c) => c.charCodeAt(0)), 0x02, 0]),
  ...section(10, [1, ...uleb(code.length), ...code]),
]);

// The project's TypeScript libraries carry no WebAssembly declarations: the few members used here.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export interface SimdKnn {
  /**
   * For each query descriptor: nearest of the `count` reference descriptors from `offset`, as
   * [best index, best distance, second-best distance] triples.
   */
  nearestTwo(offset: number, count: number): Int32Array;
}

/**
 * A matcher over one library (descriptor bytes copied into the module's memory once) and one query at a time.
 * Null when WebAssembly SIMD is not available.
 */
export class SimdHamming {
  private readonly memory: WasmMemory;
  private readonly knn: (q: number, qn: number, r: number, rn: number, out: number) => void;
  private libraryBytes = 0;
  private libraryKey: string | null = null;

  private constructor(instance: { exports: Record<string, unknown> }) {
    this.memory = instance.exports.memory as WasmMemory;
    this.knn = instance.exports.knn as SimdHamming['knn'];
  }

  static create(): SimdHamming | null {
    if (!wasm?.validate(MODULE)) return null;
    return new SimdHamming(new wasm.Instance(new wasm.Module(MODULE)));
  }

  private ensure(bytes: number): void {
    const missing = bytes - this.memory.buffer.byteLength;
    if (missing > 0) this.memory.grow(Math.ceil(missing / 65536));
  }

  /** Places the library's descriptors at the start of memory (skipped when `key` is already there). */
  useLibrary(key: string, descriptors: Uint8Array): void {
    if (this.libraryKey === key) return;
    this.ensure(descriptors.byteLength);
    new Uint8Array(this.memory.buffer).set(descriptors, 0);
    this.libraryBytes = descriptors.byteLength;
    this.libraryKey = key;
  }

  /** Places a query's descriptors after the library; returns the matcher for it. */
  useQuery(descriptors: Uint8Array): SimdKnn {
    const count = descriptors.byteLength / 32;
    const queryAt = this.libraryBytes;
    const outAt = queryAt + descriptors.byteLength;
    this.ensure(outAt + count * 12);
    new Uint8Array(this.memory.buffer).set(descriptors, queryAt);
    return {
      nearestTwo: (offset, n) => {
        this.knn(queryAt, count, offset * 32, n, outAt);
        return new Int32Array(this.memory.buffer, outAt, count * 3).slice();
      },
    };
  }
}
