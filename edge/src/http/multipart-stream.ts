/**
 * The multipart field reader of multipart.ts, fed chunk by chunk: the same text fields, by the same busboy
 * rules, from a body that streams past. It keeps only what a field needs (a header block up to 80 KB, a text
 * value up to 1 MB, 8 MB of text in all, one delimiter's length of look-behind); file contents are scanned
 * and dropped. Work is
 * linear in the body: the delimiter `\r\n--boundary` holds a CR only in front (header values cannot carry
 * one), so a partial match never has to be re-read, and each byte is searched once per needle.
 */
import { decodeBinary } from './header-params.js';
import {
  binaryString,
  indexOfBytes,
  MAX_FIELD_BYTES,
  MAX_FIELDS,
  MAX_HEADER_BYTES,
  MAX_TEXT_FIELDS_BYTES,
  parseHeaderBlock,
  partInfo,
  textFieldsTooLarge,
  type PartInfo,
} from './multipart.js';

const encoder = new TextEncoder();
const HEADER_END = encoder.encode('\r\n\r\n');
const EMPTY = new Uint8Array(0);

/** One copy of all the pieces (a field split over many reads is joined once, not piece by piece). */
function joinAll(pieces: Uint8Array[], size: number): Uint8Array {
  if (pieces.length === 1) return pieces[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.byteLength;
  }
  return out;
}

type State = 'preamble' | 'boundaryEnd' | 'headers' | 'content' | 'done';

export class MultipartFieldStream {
  /** `[name, value]` of every complete non-file part so far, in body order. */
  readonly fields: [string, string][] = [];
  readonly #delimiter: Uint8Array;
  #state: State = 'preamble';
  /** Bytes not consumed yet by the current state: `#store[#start, #end)` (grown by doubling, so appends stay linear). */
  #store = new Uint8Array(4096);
  #start = 0;
  #end = 0;
  /** Offsets in the live bytes before which no delimiter / header end can start (already searched). */
  #delimiterFrom = 0;
  #headerEndFrom = 0;
  /** First 80 KB of a header block that is still open after that many bytes (the rest is only searched). */
  #headerHead: Uint8Array | null = null;
  #part: PartInfo | undefined;
  #value: Uint8Array[] = [];
  #valueBytes = 0;
  /** Text bytes of every field so far (bounded by MAX_TEXT_FIELDS_BYTES). */
  #textBytes = 0;

  constructor(boundary: string) {
    this.#delimiter = encoder.encode(`\r\n--${boundary}`);
    // Dicer reads CRLF + body, so the first delimiter may open the body.
    this.#append(encoder.encode('\r\n'));
  }

  /** True once the closing delimiter (or the 257th text field) is reached: later bytes change nothing. */
  get done(): boolean {
    return this.#state === 'done';
  }

  push(chunk: Uint8Array): void {
    if (this.#state === 'done' || chunk.byteLength === 0) return;
    this.#append(chunk);
    this.#run();
  }

  /** The body ended: a part without its closing delimiter is dropped (busboy fails such a body). */
  end(): [string, string][] {
    this.#state = 'done';
    this.#store = EMPTY;
    this.#start = this.#end = 0;
    this.#value = [];
    return this.fields;
  }

  #run(): void {
    const delimiterLength = this.#delimiter.byteLength;
    for (;;) {
      const buf = this.#store.subarray(this.#start, this.#end);
      switch (this.#state) {
        case 'done':
          return;
        case 'preamble': {
          const at = indexOfBytes(buf, this.#delimiter, this.#delimiterFrom);
          if (at === -1) return this.#keepTail(delimiterLength - 1);
          this.#consume(at + delimiterLength, 'boundaryEnd');
          break;
        }
        case 'boundaryEnd': {
          if (buf.byteLength < 2) return;
          if (buf[0] === 0x2d && buf[1] === 0x2d) {
            this.end();
            return;
          }
          this.#headerHead = null;
          this.#consume(0, 'headers');
          break;
        }
        case 'headers': {
          const next = indexOfBytes(buf, this.#delimiter, this.#delimiterFrom);
          // The header end must lie wholly before the next delimiter.
          const end = indexOfBytes(next === -1 ? buf : buf.subarray(0, next), HEADER_END, this.#headerEndFrom);
          if (next !== -1 && end === -1) {
            this.#consume(next + delimiterLength, 'boundaryEnd'); // no header block: the part is skipped
            break;
          }
          if (end !== -1) {
            // A delimiter could still start inside the header end's second CRLF: wait until it cannot.
            if (next === -1 && buf.byteLength < end + 2 + delimiterLength) {
              this.#delimiterFrom = Math.max(0, buf.byteLength - delimiterLength + 1);
              this.#headerEndFrom = end;
              return;
            }
            const block = this.#headerHead ?? buf.subarray(0, Math.min(end, MAX_HEADER_BYTES));
            this.#part = partInfo(parseHeaderBlock(binaryString(block)));
            this.#value = [];
            this.#valueBytes = 0;
            this.#consume(end + 4, 'content');
            break;
          }
          this.#delimiterFrom = Math.max(0, buf.byteLength - delimiterLength + 1);
          this.#headerEndFrom = Math.max(0, buf.byteLength - 3);
          if (!this.#headerHead && buf.byteLength >= MAX_HEADER_BYTES + 3) this.#headerHead = buf.slice(0, MAX_HEADER_BYTES);
          if (this.#headerHead) this.#keepTail(Math.max(delimiterLength - 1, 3));
          return;
        }
        case 'content': {
          const next = indexOfBytes(buf, this.#delimiter, this.#delimiterFrom);
          const isText = this.#part !== undefined && !this.#part.isFile;
          if (next === -1) {
            const keep = Math.min(buf.byteLength, delimiterLength - 1);
            if (isText) this.#collect(buf.subarray(0, buf.byteLength - keep));
            return this.#keepTail(keep);
          }
          if (isText) {
            if (this.fields.length === MAX_FIELDS) {
              this.end();
              return;
            }
            this.#collect(buf.subarray(0, next));
            const value = this.#value.length ? joinAll(this.#value, this.#valueBytes) : EMPTY;
            this.fields.push([this.#part!.name, decodeBinary(binaryString(value), this.#part!.charset)]);
            this.#value = [];
          }
          this.#consume(next + delimiterLength, 'boundaryEnd');
          break;
        }
      }
    }
  }

  #append(chunk: Uint8Array): void {
    const live = this.#end - this.#start;
    if (this.#end + chunk.byteLength > this.#store.byteLength) {
      if (live + chunk.byteLength <= this.#store.byteLength) {
        this.#store.copyWithin(0, this.#start, this.#end);
      } else {
        const grown = new Uint8Array(Math.max(4096, 2 * (live + chunk.byteLength)));
        grown.set(this.#store.subarray(this.#start, this.#end));
        this.#store = grown;
      }
      this.#start = 0;
      this.#end = live;
    }
    this.#store.set(chunk, this.#end);
    this.#end += chunk.byteLength;
  }

  #consume(count: number, state: State): void {
    this.#start += count;
    this.#state = state;
    this.#delimiterFrom = 0;
    this.#headerEndFrom = 0;
  }

  /** Keeps only the last `count` bytes (a match may still start there). */
  #keepTail(count: number): void {
    const cut = Math.max(0, this.#end - this.#start - count);
    this.#start += cut;
    this.#delimiterFrom = Math.max(0, this.#delimiterFrom - cut);
    this.#headerEndFrom = Math.max(0, this.#headerEndFrom - cut);
  }

  #collect(bytes: Uint8Array): void {
    const room = MAX_FIELD_BYTES - this.#valueBytes;
    if (room <= 0 || bytes.byteLength === 0) return;
    const length = Math.min(room, bytes.byteLength);
    this.#textBytes += length;
    if (this.#textBytes > MAX_TEXT_FIELDS_BYTES) throw textFieldsTooLarge();
    const kept = bytes.slice(0, length);
    this.#value.push(kept);
    this.#valueBytes += kept.byteLength;
  }
}
