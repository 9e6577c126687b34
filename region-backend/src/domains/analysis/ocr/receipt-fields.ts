/**
 * Reads the fields of a card payment slip (POS 签购单 / sales slip) from its OCR rows, Chinese or English:
 * a field's label is found on a row (tolerating OCR confusions and missing spaces) and its value is taken
 * after the label on the same row, else from the next row. Values are checked by shape (15-digit merchant
 * numbers, 8-character terminal ids, decimal amounts), so a label with no valid value does not invent one.
 */
import { RECEIPT_FIELD_TYPES, type ReceiptFieldType } from '@iris/shared';

export interface ReceiptField {
  type: ReceiptFieldType;
  value: string | null;
  /** Always 0: the interface defines no confidence for receipt fields. */
  score: 0;
}

/** Regex source for a Latin label that tolerates OCR confusions and lost spaces: `lab('MERCHANT NO')`. */
function lab(words: string): string {
  const confusable: Record<string, string> = { O: '[O0Q]', I: '[I1L|!]', L: '[L1I|]', S: '[S5]', B: '[B8]', Z: '[Z2]', '.': '\\.?' };
  return words
    .split(' ')
    .map((w) => [...w].map((c) => confusable[c] ?? c).join(''))
    .join('\\s*');
}

const SEP = '[\\s:.#()\\-_/]*';

/** Labels of the card network's (UnionPay, Visa, …) merchant id: matched before the acquirer's merchant number. */
const NETWORK_LABEL = new RegExp(
  [
    '(?:中国)?银联商户(?:编)?号',
    '(?:国际|外卡|卡组织|境外)商户(?:编)?号',
    `(?:${lab('CUP')}|${lab('UNIONPAY')}|${lab('UPI')}|${lab('VISA')}|${lab('MASTER')}(?:${lab('CARD')})?|${lab('JCB')}|${lab('AMEX')}|${lab('CARD NETWORK')}|${lab('NETWORK')}|${lab('SCHEME')})${SEP}(?:${lab('MERCHANT')}${SEP}(?:${lab('NO')}|${lab('ID')}|${lab('NUMBER')}|${lab('CODE')})|${lab('MID')})`,
  ].join('|'),
);

const MERCHANT_LABEL = new RegExp(
  [
    '(?:特约)?商户(?:编|代)?[号码]',
    `${lab('MERCHANT')}${SEP}(?:${lab('NO')}|${lab('NUMBER')}|${lab('ID')}|${lab('CODE')}|#)`,
    `${lab('MER')}${SEP}(?:${lab('NO')}|${lab('ID')})`,
    `(?<![A-Z])${lab('MID')}(?![A-Z])`,
  ].join('|'),
);

const TERMINAL_LABEL = new RegExp(
  ['终端(?:编)?号', `${lab('TERMINAL')}${SEP}(?:${lab('NO')}|${lab('NUMBER')}|${lab('ID')}|#)?`, `${lab('TERM')}${SEP}(?:${lab('NO')}|${lab('ID')})`, `(?<![A-Z])${lab('TID')}(?![A-Z])`].join('|'),
);

/** Amount labels by priority: a total beats a plain amount (slips with tips print base, tip and total). */
const TOTAL_LABEL = new RegExp(['合计', '总计', '总金额', '实付金额', `${lab('TOTAL')}(?!\\s*${lab('ITEMS')})`, `${lab('GRAND')}`].join('|'));
const AMOUNT_LABEL = new RegExp(['金额', '消费金额', '交易金额', `${lab('AMOUNT')}`, `(?<![A-Z])${lab('AMT')}(?![A-Z])`, `${lab('SALE')}${SEP}${lab('AMOUNT')}`].join('|'));
const CURRENCY = /(?:RMB|CNY|USD|HKD|EUR|[¥￥$])/;
/** Amount-like labels that are not the paid amount. */
const NOT_AMOUNT = /小费|TIPS?(?![A-Z])|余额|BALANCE|CASH\s*BACK|找零|CHANGE/;

/** Full-width forms to ASCII (NFKC), upper case, unified colons and spaces. */
export function normaliseRow(text: string): string {
  return text.normalize('NFKC').toUpperCase().replace(/[：﹕]/g, ':').replace(/\s+/g, ' ').trim();
}

/** Letters OCR often reads in place of digits, applied only inside tokens that are mostly digits. */
const DIGIT_LOOKALIKES: Record<string, string> = { O: '0', Q: '0', D: '0', I: '1', L: '1', '|': '1', '!': '1', Z: '2', S: '5', B: '8', G: '6' };

function digitise(token: string): string {
  const digits = [...token].filter((c) => c >= '0' && c <= '9').length;
  if (digits < 3 || digits / token.length < 0.6) return token;
  return [...token].map((c) => DIGIT_LOOKALIKES[c] ?? c).join('');
}

/** The text after a label, with mostly-digit tokens repaired. */
function valueText(text: string): string {
  return text.replace(/[A-Z0-9|!]+/g, digitise);
}

function merchantValue(text: string): string | null {
  const t = valueText(text);
  const exact = /(?<!\d)\d{15}(?!\d)/.exec(t) ?? /(?<!\d)\d{15}(?!\d)/.exec(t.replace(/(?<=\d) (?=\d)/g, ''));
  if (exact) return exact[0];
  // Some acquirers issue other lengths or letters: accept a long id-like token as printed.
  const loose = /(?<![A-Z0-9])(?=[A-Z0-9]*\d{6})[A-Z0-9]{10,20}(?![A-Z0-9])/.exec(t);
  return loose ? loose[0] : null;
}

function terminalValue(text: string): string | null {
  const t = valueText(text);
  // A space the recogniser (or the gap finder) put inside the number does not split it.
  const exact = /(?<![A-Z0-9])\d{8}(?![A-Z0-9])/.exec(t) ?? /(?<![A-Z0-9])\d{8}(?![A-Z0-9])/.exec(t.replace(/(?<=\d) (?=\d)/g, ''));
  if (exact) return exact[0];
  const loose = /(?<![A-Z0-9])(?=[A-Z0-9]*\d{4})[A-Z0-9]{8}(?![A-Z0-9])/.exec(t);
  return loose ? loose[0] : null;
}

function amountValue(text: string): string | null {
  const t = valueText(text).replace(/(?<=\d)\s+(?=[.,]?\d)/g, '').replace(/(?<=\d)\s*\.\s*(?=\d)/g, '.');
  // Thousands separators may come back as dots and the decimal point as a comma: the last separator
  // followed by exactly two digits is the decimal point.
  const withDecimals = /(?<![\d.,])(\d{1,3}(?:[.,]\d{3})+|\d+)[.,](\d{2})(?![\d.,]?\d)/.exec(t);
  if (withDecimals) return `${withDecimals[1]!.replace(/[.,]/g, '')}.${withDecimals[2]}`;
  const whole = /(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?![\d.,])/.exec(t);
  return whole ? whole[1]!.replace(/,/g, '') : null;
}

interface Labelled {
  label: RegExp;
  read: (text: string) => string | null;
  /** Labels of other fields that look like this one's and must not be taken for it. */
  unless?: RegExp;
}

const FIELDS: Record<Exclude<ReceiptFieldType, 'amount'>, Labelled> = {
  cardnetwork_merchant_code: { label: NETWORK_LABEL, read: merchantValue },
  merchant_code: { label: MERCHANT_LABEL, read: merchantValue, unless: NETWORK_LABEL },
  terminal_no: { label: TERMINAL_LABEL, read: terminalValue },
};

/** Value after the label on the row, else on the next row (labels printed above their values). */
function labelledValue(rows: string[], field: Labelled): string | null {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const compact = row.replace(/\s+/g, '');
    let match = field.label.exec(compact);
    while (match && field.unless) {
      const hit = match;
      // Skip a hit that is part of another field's label (e.g. "MERCHANT NO" inside "CUP MERCHANT NO").
      const around = compact.slice(Math.max(0, hit.index - 12), hit.index + hit[0].length);
      if (!field.unless.test(around)) break;
      const next = new RegExp(field.label.source, 'g');
      next.lastIndex = hit.index + 1;
      match = next.exec(compact);
    }
    if (!match) continue;
    const after = compact.slice(match.index + match[0].length);
    const here = field.read(restOfRow(row, after));
    if (here) return here;
    const next = rows[i + 1];
    if (next !== undefined && !anyLabel(next)) {
      const below = field.read(next);
      if (below) return below;
    }
  }
  return null;
}

/** The part of the original row (with spaces) that follows the label found in its compact form. */
function restOfRow(row: string, compactRest: string): string {
  if (!compactRest) return '';
  let kept = 0;
  for (let i = row.length - 1; i >= 0; i--) {
    if (row[i] !== ' ') kept++;
    if (kept === compactRest.length) return row.slice(i);
  }
  return row;
}

const ANY_LABEL = new RegExp([NETWORK_LABEL, MERCHANT_LABEL, TERMINAL_LABEL, TOTAL_LABEL, AMOUNT_LABEL].map((r) => r.source).join('|'));

function anyLabel(row: string): boolean {
  return ANY_LABEL.test(row.replace(/\s+/g, ''));
}

function amount(rows: string[]): string | null {
  for (const label of [TOTAL_LABEL, AMOUNT_LABEL]) {
    for (let i = 0; i < rows.length; i++) {
      const compact = rows[i]!.replace(/\s+/g, '');
      const match = label.exec(compact);
      if (!match || NOT_AMOUNT.test(compact.slice(0, match.index + match[0].length))) continue;
      const here = amountValue(restOfRow(rows[i]!, compact.slice(match.index + match[0].length)));
      if (here) return here;
      const next = rows[i + 1];
      if (next !== undefined && !anyLabel(next)) {
        const below = amountValue(next);
        if (below && (CURRENCY.test(next) || /\d[.,]\d{2}/.test(next))) return below;
      }
    }
  }
  // No label read: a currency-marked decimal amount on its own.
  for (const row of rows) {
    if (!CURRENCY.test(row) || NOT_AMOUNT.test(row)) continue;
    const value = amountValue(row.slice(CURRENCY.exec(row)!.index));
    if (value && value.includes('.')) return value;
  }
  return null;
}

/** The four receipt fields, always in this order, `value` null when not found. */
export function extractReceiptFields(rowTexts: string[]): ReceiptField[] {
  const rows = rowTexts.map(normaliseRow).filter(Boolean);
  const values: Record<ReceiptFieldType, string | null> = {
    merchant_code: labelledValue(rows, FIELDS.merchant_code),
    terminal_no: labelledValue(rows, FIELDS.terminal_no),
    cardnetwork_merchant_code: labelledValue(rows, FIELDS.cardnetwork_merchant_code),
    amount: amount(rows),
  };
  // The acquirer's merchant number is printed on every slip; when its label was misread, a lone 15-digit
  // number that no other field claimed is taken.
  if (!values.merchant_code) {
    const claimed = new Set([values.cardnetwork_merchant_code]);
    const candidates = new Set(rows.flatMap((r) => valueText(r).match(/(?<!\d)\d{15}(?!\d)/g) ?? []).filter((v) => !claimed.has(v)));
    if (candidates.size === 1) values.merchant_code = [...candidates][0]!;
  }
  return RECEIPT_FIELD_TYPES.map((type) => ({ type, value: values[type], score: 0 }));
}
