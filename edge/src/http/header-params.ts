/**
 * Header parameters (`form-data; name="a"; filename="b"`, `multipart/form-data; boundary=x`) read exactly
 * as the backend's multipart parser (@fastify/busboy `parseParams`) reads them, fast path included, so that
 * the edge and the backend agree on field names, file parts and boundaries (docs/edge.md, "One reading").
 * Input and output are "binary" strings (one char per byte) decoded as UTF-8 where busboy decodes them.
 */
const STATE_KEY = 0;
const STATE_VALUE = 1;
const STATE_CHARSET = 2;
const STATE_LANG = 3;

export type Param = string | [string, string | undefined];

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const latin1Charsets = new Set(['latin1', 'ascii', 'us-ascii', 'iso-8859-1', 'iso8859-1', 'iso88591', 'iso_8859-1', 'windows-1252', 'iso_8859-1:1987', 'cp1252', 'x-cp1252']);

function binaryBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/** busboy's decodeText for a binary string; charsets other than UTF-8 and Latin-1 are decoded when known. */
export function decodeBinary(text: string, charset: string): string {
  if (text.length === 0) return '';
  const lc = charset.toLowerCase();
  if (lc === 'utf-8' || lc === 'utf8') return isAscii(text) ? text : utf8.decode(binaryBytes(text));
  if (latin1Charsets.has(lc)) return text;
  try {
    return new TextDecoder(lc, { fatal: false, ignoreBOM: true }).decode(binaryBytes(text));
  } catch {
    return text;
  }
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function decodeUtf8Text(text: string): string {
  return isAscii(text) ? text : decodeBinary(text, 'utf8');
}

function percentDecode(text: string): string {
  return text.replace(/%[a-fA-F0-9][a-fA-F0-9]/g, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));
}

function parseFormDataDisposition(str: string): Param[] | undefined {
  if (!str.startsWith('form-data; name="')) return undefined;
  let valueStart = 17;
  let valueEnd = str.indexOf('"', valueStart);
  if (valueEnd === -1 || str.indexOf('\\', valueStart) !== -1) return undefined;
  const res: Param[] = ['form-data', ['name', decodeUtf8Text(str.slice(valueStart, valueEnd))]];
  let pos = valueEnd + 1;
  while (pos < str.length && str[pos] !== ';') ++pos;
  if (pos === str.length) return res;
  ++pos;
  while (str[pos] === ' ' || str[pos] === '\t') ++pos;
  if (!str.startsWith('filename="', pos)) return undefined;
  valueStart = pos + 10;
  valueEnd = str.indexOf('"', valueStart);
  if (valueEnd === -1 || str.indexOf('\\', valueStart) !== -1) return undefined;
  res.push(['filename', decodeUtf8Text(str.slice(valueStart, valueEnd))]);
  return res;
}

/** busboy's parseParams, step for step. */
export function parseParams(str: string): Param[] {
  if (str.indexOf(';') === -1) return [decodeUtf8Text(str)];
  const fast = parseFormDataDisposition(str);
  if (fast !== undefined) return fast;
  const res: Param[] = [];
  let state = STATE_KEY;
  let charset = '';
  let inquote = false;
  let escaping = false;
  let p = 0;
  let tmp = '';
  const len = str.length;
  const store = (value: string) => {
    const current = res[p];
    if (current === undefined) res[p] = value;
    else if (Array.isArray(current)) current[1] = value;
  };
  for (let i = 0; i < len; ++i) {
    const char = str[i]!;
    if (char === '\\' && inquote) {
      if (escaping) escaping = false;
      else {
        escaping = true;
        continue;
      }
    } else if (char === '"') {
      if (!escaping) {
        if (inquote) {
          inquote = false;
          state = STATE_KEY;
          while (i + 1 < len && str[i + 1] !== ';') ++i;
        } else inquote = true;
        continue;
      } else escaping = false;
    } else {
      if (escaping && inquote) tmp += '\\';
      escaping = false;
      if ((state === STATE_CHARSET || state === STATE_LANG) && char === "'") {
        if (state === STATE_CHARSET) {
          state = STATE_LANG;
          charset = tmp.substring(1);
        } else state = STATE_VALUE;
        tmp = '';
        continue;
      } else if (state === STATE_KEY && (char === '*' || char === '=') && res.length) {
        state = char === '*' ? STATE_CHARSET : STATE_VALUE;
        res[p] = [tmp, undefined];
        tmp = '';
        continue;
      } else if (!inquote && char === ';') {
        state = STATE_KEY;
        if (charset) {
          if (tmp.length) tmp = decodeBinary(percentDecode(tmp), charset);
          charset = '';
        } else if (tmp.length) tmp = decodeUtf8Text(tmp);
        store(tmp);
        tmp = '';
        ++p;
        continue;
      } else if (!inquote && (char === ' ' || char === '\t')) continue;
    }
    tmp += char;
  }
  if (charset && tmp.length) tmp = decodeBinary(percentDecode(tmp), charset);
  else if (tmp) tmp = decodeUtf8Text(tmp);
  if (res[p] === undefined) {
    if (tmp) res[p] = tmp;
  } else store(tmp);
  return res;
}

/** The value of parameter `name` (case-insensitive), the first one like busboy's boundary lookup. */
export function firstParam(params: Param[], name: RegExp): string | undefined {
  for (const param of params) if (Array.isArray(param) && name.test(param[0])) return param[1];
  return undefined;
}
