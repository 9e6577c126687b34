/**
 * A JPEG without its metadata, losslessly: the marker segments are walked and the entropy-coded data, the
 * tables and the frame are copied byte for byte, so the copy decodes to exactly the pixels of the original.
 * Dropped: EXIF and XMP (APP1, where a photo's location lives), ICC (APP2), IPTC (APP13), every other
 * application segment and comments; kept: JFIF (APP0) and Adobe (APP14), which tell a decoder the colour
 * transform. Anything after the end marker is dropped too. A file the walk does not understand answers null
 * (the caller re-encodes it instead); the walk reads each byte at most once.
 */

const MARKER = 0xff;
const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const APP0 = 0xe0;
const APP14 = 0xee;
const APP15 = 0xef;
const COM = 0xfe;

function startsWith(bytes: Uint8Array, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** Whether the segment of `marker` whose payload starts at `payload` (after its length) is kept. */
function kept(bytes: Uint8Array, marker: number, payload: number, length: number): boolean {
  if (marker === COM) return false;
  if (marker < APP0 || marker > APP15) return true;
  if (marker === APP0) return length >= 5 && startsWith(bytes, payload, 'JFIF\0');
  if (marker === APP14) return length >= 5 && startsWith(bytes, payload, 'Adobe');
  return false;
}

/** End of the entropy-coded data that starts at `from`: the position of the next marker, or -1. */
function entropyEnd(bytes: Uint8Array, from: number): number {
  for (let p = from; p + 1 < bytes.length; p++) {
    if (bytes[p] !== MARKER) continue;
    const next = bytes[p + 1]!;
    // A stuffed zero, a restart marker or a fill byte belong to the scan.
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === MARKER) {
      if (next !== MARKER) p++;
      continue;
    }
    return p;
  }
  return -1;
}

/** One marker segment: from its FF (after any fill bytes) to just past it. EOI has no length: it ends 2 bytes on. */
interface Segment {
  marker: number;
  start: number;
  end: number;
}

/**
 * The marker segment at `pos`, or null when the bytes there are not one: no marker, a stray SOI, restart or TEM
 * (only segments with a length may appear between the start and a scan), or a length past the end.
 */
function segmentAt(bytes: Uint8Array, pos: number): Segment | null {
  if (bytes[pos] !== MARKER) return null;
  // Fill bytes before a marker.
  while (pos + 1 < bytes.length && bytes[pos + 1] === MARKER) pos++;
  if (pos + 1 >= bytes.length) return null;
  const marker = bytes[pos + 1]!;
  if (marker === EOI) return { marker, start: pos, end: pos + 2 };
  if (marker === SOI || marker === 0x00 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) return null;
  if (pos + 4 > bytes.length) return null;
  const length = (bytes[pos + 2]! << 8) | bytes[pos + 3]!;
  const end = pos + 2 + length;
  if (length < 2 || end > bytes.length) return null;
  return { marker, start: pos, end };
}

/** The JPEG without metadata segments, or null when it is not a well-formed JPEG (see the module note). */
export function stripJpegMetadata(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length < 4 || bytes[0] !== MARKER || bytes[1] !== SOI) return null;
  const parts: Uint8Array[] = [bytes.subarray(0, 2)];
  let pos = 2;
  let scans = 0;
  while (pos + 1 < bytes.length) {
    const segment = segmentAt(bytes, pos);
    if (!segment) return null;
    const { marker, start, end } = segment;
    if (marker === EOI) {
      if (!scans) return null;
      parts.push(bytes.subarray(start, end));
      const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
      let at = 0;
      for (const part of parts) {
        out.set(part, at);
        at += part.length;
      }
      return out;
    }
    if (kept(bytes, marker, start + 4, end - start - 4)) parts.push(bytes.subarray(start, end));
    pos = end;
    if (marker === SOS) {
      scans++;
      const scanEnd = entropyEnd(bytes, pos);
      if (scanEnd < 0) return null;
      parts.push(bytes.subarray(pos, scanEnd));
      pos = scanEnd;
    }
  }
  return null;
}

/** Start-of-frame markers (SOF0–SOF15 but DHT, JPG and DAC, which share the range): they carry the frame's size. */
const isFrameMarker = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/**
 * The frame's width and height as its header states them, from the segments before the first scan (each read
 * at most once, walked as `stripJpegMetadata` walks them; null when they are not well-formed up to a frame). An estimate for sizing only: the
 * decoder, not this, says what the pixels are.
 */
export function jpegFrameSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 4 || bytes[0] !== MARKER || bytes[1] !== SOI) return null;
  let pos = 2;
  while (pos + 1 < bytes.length) {
    const segment = segmentAt(bytes, pos);
    if (!segment || segment.marker === SOS || segment.marker === EOI) return null;
    if (isFrameMarker(segment.marker)) {
      // Marker (2), length (2), precision (1), height (2), width (2).
      const at = segment.start;
      if (segment.end - at < 9) return null;
      const height = (bytes[at + 5]! << 8) | bytes[at + 6]!;
      const width = (bytes[at + 7]! << 8) | bytes[at + 8]!;
      return width > 0 && height > 0 ? { width, height } : null;
    }
    pos = segment.end;
  }
  return null;
}
