/**
 * Text fields of a multipart/form-data body, found by scanning the bytes (file contents are skipped, never
 * copied or decoded). A part is a file when it has a filename or is `application/octet-stream`, the rule
 * the backend's multipart parser uses, so both sides agree on which parameters are signed.
 */
const decoder = new TextDecoder();
const encoder = new TextEncoder();

export function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  let i = haystack.indexOf(first, from);
  while (i !== -1 && i + needle.length <= haystack.length) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
    i = haystack.indexOf(first, i + 1);
  }
  return -1;
}

interface PartHeaders {
  name: string | undefined;
  isFile: boolean;
}

function parsePartHeaders(text: string): PartHeaders {
  let name: string | undefined;
  let isFile = false;
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1);
    if (header === 'content-disposition') {
      const nameMatch = /(?:^|;)\s*name\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/i.exec(value);
      if (nameMatch) name = nameMatch[1] !== undefined ? nameMatch[1].replace(/\\(.)/g, '$1') : nameMatch[2];
      if (/(?:^|;)\s*filename\*?\s*=/i.test(value)) isFile = true;
    } else if (header === 'content-type' && value.trim().toLowerCase().startsWith('application/octet-stream')) {
      isFile = true;
    }
  }
  return { name, isFile };
}

/** `[name, value]` of every non-file part, in body order. Malformed input yields the parts found so far. */
export function multipartTextFields(body: Uint8Array, boundary: string): [string, string][] {
  const fields: [string, string][] = [];
  const delimiter = encoder.encode(`--${boundary}`);
  const crlfDelimiter = encoder.encode(`\r\n--${boundary}`);
  let pos = indexOfBytes(body, delimiter, 0);
  while (pos !== -1) {
    pos += delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break; // closing delimiter "--"
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++; // transport padding
    if (body[pos] === 0x0d) pos++;
    if (body[pos] === 0x0a) pos++;
    let headerEnd = indexOfBytes(body, encoder.encode('\r\n\r\n'), pos);
    let bodyStart = headerEnd + 4;
    if (headerEnd === -1) {
      headerEnd = indexOfBytes(body, encoder.encode('\n\n'), pos);
      bodyStart = headerEnd + 2;
    }
    if (headerEnd === -1) break;
    const next = indexOfBytes(body, crlfDelimiter, bodyStart);
    if (next === -1) break;
    const headers = parsePartHeaders(decoder.decode(body.subarray(pos, headerEnd)));
    if (headers.name !== undefined && !headers.isFile) fields.push([headers.name, decoder.decode(body.subarray(bodyStart, next))]);
    pos = next + 2; // at the "--boundary" of the next delimiter
  }
  return fields;
}
