/** Float32 arrays ⇄ little-endian bytes, the storage form of features and weights in PostgreSQL (bytea). */
export function float32ToBytes(values: Float32Array): Buffer {
  const out = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) out.writeFloatLE(values[i]!, i * 4);
  return out;
}

export function bytesToFloat32(bytes: Uint8Array, expectedLength?: number): Float32Array {
  if (bytes.length % 4 !== 0) throw new RangeError(`${bytes.length} bytes is not a whole number of float32 values`);
  const out = new Float32Array(bytes.length / 4);
  if (expectedLength !== undefined && out.length !== expectedLength) throw new RangeError(`expected ${expectedLength} float32 values, found ${out.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
