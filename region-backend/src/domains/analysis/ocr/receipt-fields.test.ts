import { describe, expect, it } from 'vitest';
import { RECEIPT_FIELD_TYPES } from '@iris/shared';
import { extractReceiptFields } from './receipt-fields.js';

const values = (rows: string[]) => Object.fromEntries(extractReceiptFields(rows).map((f) => [f.type, f.value]));

describe('extractReceiptFields', () => {
  it('always answers the four fields in order, score 0, null when absent', () => {
    const fields = extractReceiptFields(['hello world']);
    expect(fields.map((f) => f.type)).toEqual([...RECEIPT_FIELD_TYPES]);
    expect(fields.every((f) => f.value === null && f.score === 0)).toBe(true);
  });

  it('reads a bilingual UnionPay slip with values on the label line and the next line', () => {
    expect(
      values([
        '银联POS签购单',
        '商户名称（MERCHANT NAME）：全家便利店',
        '商户编号（MERCHANT NO.）：',
        '102310058120123',
        '终端编号（TERMINAL NO.）：12345678 操作员号：01',
        '银联商户号：898310048161234',
        '批次号（BATCH NO.）：000123',
        '参考号（REFER NO.）：123456789012',
        '金额（AMOUNT）：',
        'RMB 128.00',
      ]),
    ).toEqual({ merchant_code: '102310058120123', terminal_no: '12345678', cardnetwork_merchant_code: '898310048161234', amount: '128.00' });
  });

  it('reads an English slip with MID/TID and prefers the total over base amount and tip', () => {
    expect(
      values(['BLUE HARBOUR CAFE', 'MID:035684667241938', 'TID :', '27855869', 'VISA MID: 555000111222333', 'BASE AMT: USD 40.00', 'TIPS: USD 5.20', 'TOTAL: USD 1,045.20']),
    ).toEqual({ merchant_code: '035684667241938', terminal_no: '27855869', cardnetwork_merchant_code: '555000111222333', amount: '1045.20' });
  });

  it('tolerates OCR confusions, lost spaces and full-width punctuation', () => {
    expect(values(['MERCHANTN0.：1O231OO58l2Ol23', 'TERMlNALNO:8765 432l', '交易金额：RMB7.584.52'])).toEqual({
      merchant_code: '102310058120123',
      terminal_no: '87654321',
      cardnetwork_merchant_code: null,
      amount: '7584.52',
    });
  });

  it('does not take the card network number for the merchant number, nor a label without a value', () => {
    expect(values(['CUP MERCHANT NO.: 111222333444555', '商户编号：', '持卡人签名'])).toEqual({
      merchant_code: null,
      terminal_no: null,
      cardnetwork_merchant_code: '111222333444555',
      amount: null,
    });
  });

  it('falls back to a lone unlabelled 15-digit number and a currency-marked amount', () => {
    expect(values(['商尸缟亏 102310058120123', '¥ 56.70'])).toEqual({
      merchant_code: '102310058120123',
      terminal_no: null,
      cardnetwork_merchant_code: null,
      amount: '56.70',
    });
  });
});
