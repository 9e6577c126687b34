/**
 * The specification's error codes and its three error body shapes.
 *
 * - `resource`: data sets, product sets, training, search services and queries:
 *   `{error_code, message, request_id}` with a non-200 HTTP status.
 * - `analysis`: detect, classify, colour, fashion and custom-classifier inference:
 *   `{data: {is_err: 1, message, msg, request_id, time, error_code}, status}` (colour and fashion errors
 *   of the specification have no `error_code`).
 * - `batch`: `/batch/...`: `{data: {error_code, message, ...extra}, is_error: 1, request_id}`.
 */
export type ErrorFamily = 'resource' | 'analysis' | 'batch';

/** Contract codes: `[http status, error_code]`. Iris-only codes: auth and gateway 1101+, quotas 3005+, internal 9xxx. */
export const ERROR = {
  productSetNameMissing: [400, 1007],
  scenarioUnknown: [400, 2003],
  invalidData: [400, 5001],
  setNameMissing: [400, 5004],
  clearNameMismatch: [401, 1004],
  imageSetForbidden: [403, 1002],
  productSetForbidden: [403, 1005],
  serviceNotGranted: [403, 2005],
  inUse: [403, 3001],
  trainingSetQuota: [403, 3002],
  imageSetQuota: [403, 3003],
  customServiceQuota: [403, 3004],
  // Iris quotas in the same family as 3002-3004 (the specification names no code for these resources)
  productSetQuota: [403, 3005],
  searchServiceQuota: [403, 3006],
  setServiceQuota: [403, 3007],
  setRecordQuota: [403, 3008],
  accountRecordQuota: [403, 3009],
  storedBytesQuota: [403, 3010],
  badCaseQuota: [403, 3011],
  /** A search service runs one self-evaluation at a time; an account at most a few at once. */
  evaluationRunning: [403, 3012],
  /** The account has as many webhook endpoints in the region as it may. */
  webhookQuota: [403, 3020],
  classifyServiceUnknown: [404, 1001],
  productSetNotFound: [404, 1004],
  setNotFound: [404, 2001],
  serviceNotFound: [404, 2002],
  webhookNotFound: [404, 1120],
  productSetDeleteFailed: [500, 2002],
  imageDownloadFailed: [500, 4001],

  // Detect (HTTP 400, data.error_code)
  detectUndecodable: [400, 400002],
  detectNoImage: [400, 400003],
  detectDownloadFailed: [400, 400004],
  detectTooSmall: [400, 400008],

  // Colour and fashion (the specification gives only HTTP statuses: 400 bad parameters or no image, 408 image or analysis failure)
  analysisBadRequest: [400, 400],
  analysisImageFailed: [408, 408],

  // Batch (HTTP 400, data.error_code)
  batchServiceIdMissing: [400, 400001],
  batchUrlsMissing: [400, 400002],
  batchUrlsNotUtf8: [400, 400003],
  batchUrlsEmpty: [400, 400004],
  batchUrlsInvalid: [400, 400005],
  batchServiceUnknown: [400, 400007],
  batchServiceUnsupported: [400, 400008],
  batchDailyLimit: [400, 400009],
  batchAlreadyRunning: [400, 400010],
  batchTaskUnknown: [400, 400011],
  batchNotPending: [400, 400012],

  // Iris: authentication and gateway (not in the specification, which leaves them open)
  accessKeyMissing: [401, 1101],
  accessKeyUnknown: [401, 1102],
  accessKeyDisabled: [403, 1103],
  signatureInvalid: [401, 1104],
  signatureExpired: [401, 1105],
  signatureReplayed: [401, 1106],
  versionUnsupported: [400, 1107],
  notFound: [404, 1108],
  methodNotAllowed: [405, 1109],
  payloadTooLarge: [413, 1110],
  badRequest: [400, 1111],
  rateLimited: [429, 1112],
  /** The access key's scopes do not cover the call (docs/tenants.md, "Scopes"). */
  scopeForbidden: [403, 1113],
  internal: [500, 9001],
  backendUnavailable: [502, 9002],
  backendTimeout: [504, 9003],
  /** The account's share of a backend's queue is full; retry later. */
  busy: [503, 9006],
  /** An inference task ran over its time limit (its worker thread was replaced). */
  taskTimeout: [504, 9007],
  unauthorizedInternal: [401, 9004],
  notReady: [400, 9005],
} as const satisfies Record<string, readonly [number, number]>;

export type ErrorKey = keyof typeof ERROR;

/** The one error type of the platform: HTTP status + contract code + message (+ optional extra data fields). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: number;
  readonly extra: Record<string, unknown> | undefined;

  constructor(key: ErrorKey | readonly [number, number], message: string, extra?: Record<string, unknown>, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    const [status, code] = typeof key === 'string' ? ERROR[key] : key;
    this.status = status;
    this.code = code;
    this.extra = extra;
    this.name = 'ApiError';
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

const ANALYSIS_PREFIXES = ['detect', 'classify', 'color', 'dressing'];

/**
 * Which error shape a path answers with. Ready-made analysis services are recognised by their service id
 * (old clients use other type words), custom-classifier inference by `/custom_training/{service_id}`.
 */
export function errorFamilyForPath(path: string): ErrorFamily {
  const segments = path.split('?')[0]!.split('/').filter(Boolean);
  const first = segments[0] ?? '';
  if (first === 'batch') return 'batch';
  if (ANALYSIS_PREFIXES.includes(first)) return 'analysis';
  if (first === 'custom_training' && segments.length === 2 && segments[1] !== '_0000194') return 'analysis';
  if (segments.length === 2 && /^_\d{7}$/.test(segments[1]!) && isAnalysisServiceId(segments[1]!)) return 'analysis';
  return 'resource';
}

// Kept local to avoid a cycle with the catalogue module: the ids of every ready-made analysis service.
const ANALYSIS_SERVICE_IDS = new Set([
  '_0000049', '_0000059', '_0000187', '_0000171', '_0000173', '_0000188', '_0000154', '_0000143',
  '_0000024', '_0000039', '_0000159', '_0000072', '_0000073', '_0000074', '_0000111',
]);

export function isAnalysisServiceId(id: string): boolean {
  return ANALYSIS_SERVICE_IDS.has(id);
}

const COLOR_AND_FASHION_IDS = new Set(['_0000072', '_0000073', '_0000074', '_0000111']);

/**
 * Colour and fashion errors are told apart by their HTTP status alone: the specification gives their family
 * no error_code, so none carries one, whatever the status (401, 403, 404, 413, 429, 503 as well as 400 and 408).
 * (Batch result lines still name them by their status, see docs/batch.md.)
 */
export function isStatusOnlyPath(path: string): boolean {
  const serviceId = path.split('?')[0]!.split('/').filter(Boolean)[1] ?? '';
  return COLOR_AND_FASHION_IDS.has(serviceId);
}

export interface ErrorBodyInput {
  status: number;
  code: number;
  message: string;
  requestId: string;
  extra?: Record<string, unknown> | undefined;
  /** Seconds spent, for the analysis shape's `time`. */
  elapsedSeconds?: number;
  /** Analysis shape: leave `error_code` out (colour and fashion errors carry none). */
  withoutCode?: boolean;
}

export function errorBody(family: ErrorFamily, e: ErrorBodyInput): Record<string, unknown> {
  switch (family) {
    case 'resource':
      return { error_code: e.code, message: e.message, request_id: e.requestId, ...e.extra };
    case 'analysis':
      return {
        data: {
          is_err: 1,
          message: e.message,
          msg: e.message,
          request_id: e.requestId,
          time: Number((e.elapsedSeconds ?? 0).toFixed(3)),
          ...(e.withoutCode ? {} : { error_code: e.code }),
          ...e.extra,
        },
        status: e.status,
      };
    case 'batch':
      return { data: { error_code: e.code, message: e.message, ...e.extra }, is_error: 1, request_id: e.requestId };
  }
}

/** Builds the body of an ApiError for a path. */
export function apiErrorBody(path: string, err: ApiError, requestId: string, elapsedSeconds?: number): Record<string, unknown> {
  return errorBody(errorFamilyForPath(path), {
    status: err.status,
    code: err.code,
    message: err.message,
    requestId,
    extra: err.extra,
    elapsedSeconds,
    withoutCode: isStatusOnlyPath(path),
  });
}
