/**
 * Field types answered by receipt text recognition (_0000143), in the order every response lists them.
 * They are field names, not labels: the same in every language.
 */
export const RECEIPT_FIELD_TYPES = ['merchant_code', 'terminal_no', 'cardnetwork_merchant_code', 'amount'] as const;
export type ReceiptFieldType = (typeof RECEIPT_FIELD_TYPES)[number];
