/**
 * V8 flags for the local workerd. Miniflare assembles workerd's configuration (a Cap'n Proto `Config` message,
 * workerd.capnp) but never fills its `v8Flags` field, and workerd reads V8 flags nowhere else. This adds the
 * list to the encoded message as a new segment reached by a far pointer, leaving every other byte as it was.
 *
 * Layout used (Cap'n Proto encoding spec): the stream starts with the segment count − 1 and each segment's size
 * in words (uint32, little-endian, padded to a word); the root is a struct pointer at word 0 of segment 0;
 * `v8Flags` is pointer 2 of `Config` (`services @0`, `sockets @1`, `v8Flags @2`).
 */
const WORD = 8;
const V8_FLAGS_POINTER = 2;

function segmentsOf(message: Buffer): Buffer[] {
  const count = message.readUInt32LE(0) + 1;
  const headerBytes = Math.ceil((4 * (count + 1)) / WORD) * WORD;
  const segments: Buffer[] = [];
  let offset = headerBytes;
  for (let i = 0; i < count; i++) {
    const bytes = message.readUInt32LE(4 * (i + 1)) * WORD;
    segments.push(message.subarray(offset, offset + bytes));
    offset += bytes;
  }
  if (offset !== message.length) throw new Error(`workerd config: ${message.length - offset} bytes after the last segment`);
  return segments;
}

function frame(segments: Buffer[]): Buffer {
  const header = Buffer.alloc(Math.ceil((4 * (segments.length + 1)) / WORD) * WORD);
  header.writeUInt32LE(segments.length - 1, 0);
  segments.forEach((segment, i) => header.writeUInt32LE(segment.length / WORD, 4 * (i + 1)));
  return Buffer.concat([header, ...segments]);
}

/** A pointer word: `low` and `high` 32-bit halves, little-endian. */
function writePointer(target: Buffer, word: number, low: number, high: number): void {
  target.writeUInt32LE(low >>> 0, word * WORD);
  target.writeUInt32LE(high >>> 0, word * WORD + 4);
}

/** One segment: a landing pad (a list of text pointers) followed by the texts, NUL-terminated. */
function flagsSegment(flags: string[]): Buffer {
  const texts = flags.map((flag) => Buffer.from(`${flag}\0`, 'utf8'));
  const textWords = texts.map((t) => Math.ceil(t.length / WORD));
  const segment = Buffer.alloc((1 + flags.length + textWords.reduce((a, b) => a + b, 0)) * WORD);
  // Landing pad: a list of pointers (element size 6) starting right after it.
  writePointer(segment, 0, (0 << 2) | 1, (flags.length << 3) | 6);
  let at = 1 + flags.length;
  texts.forEach((text, i) => {
    const pointerWord = 1 + i;
    // A list of bytes (element size 2), offset counted from the end of the pointer.
    writePointer(segment, pointerWord, ((at - pointerWord - 1) << 2) | 1, (text.length << 3) | 2);
    text.copy(segment, at * WORD);
    at += textWords[i]!;
  });
  return segment;
}

/** The same workerd `Config` message with `v8Flags` set; refuses a message whose `v8Flags` is already set. */
export function withV8Flags(message: Buffer, flags: string[]): Buffer {
  if (flags.length === 0) return message;
  const segments = segmentsOf(message);
  const first = Buffer.from(segments[0]!);
  const low = first.readUInt32LE(0);
  const high = first.readUInt32LE(4);
  if ((low & 3) !== 0) throw new Error('workerd config: the root is not a struct pointer in the first segment');
  const structStart = 1 + (low >> 2);
  const dataWords = high & 0xffff;
  const pointerCount = high >>> 16;
  if (pointerCount <= V8_FLAGS_POINTER) throw new Error('workerd config: Config has no v8Flags pointer');
  const slot = structStart + dataWords + V8_FLAGS_POINTER;
  if (first.readUInt32LE(slot * WORD) !== 0 || first.readUInt32LE(slot * WORD + 4) !== 0) throw new Error('workerd config: v8Flags is already set');
  const segmentId = segments.length;
  // Far pointer (kind 2) to the landing pad at word 0 of the new segment.
  writePointer(first, slot, (0 << 3) | 2, segmentId);
  return frame([first, ...segments.slice(1), flagsSegment(flags)]);
}
