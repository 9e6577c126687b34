/**
 * Which error codes an operation may answer: the codes it declares, and the platform's own codes that any call
 * can meet (authentication and signatures, the gateway, limits, internal failures). The backend checks every
 * refusal against it, and the end-to-end tests check every answer they receive.
 */
import { ERROR, type ErrorKey } from '../errors.js';
import type { Operation } from './common.js';

/**
 * Codes no operation declares because every call can meet them (`badRequest`: a malformed request the
 * operation's own schema cannot even read, such as a path parameter of the wrong form).
 */
export const PLATFORM_ERROR_KEYS: readonly ErrorKey[] = [
  'badRequest', 'scopeForbidden', 'accessKeyMissing', 'accessKeyUnknown', 'accessKeyDisabled', 'signatureInvalid', 'signatureExpired', 'signatureReplayed',
  'versionUnsupported', 'methodNotAllowed', 'payloadTooLarge', 'rateLimited', 'internal', 'backendUnavailable',
  'backendTimeout', 'busy', 'taskTimeout', 'unauthorizedInternal', 'notReady',
];

/** The error keys whose answer is `status` with `code` (a few status/code pairs are shared by two keys). */
export function errorKeysOf(status: number, code: number): ErrorKey[] {
  return (Object.keys(ERROR) as ErrorKey[]).filter((key) => ERROR[key][0] === status && ERROR[key][1] === code);
}

/**
 * Whether `operation` may answer `status` with `code`. On the resource paths 400/5001 ("invalid data") is the
 * family's answer to a request it cannot read at all (a malformed body, a parameter over its length), whatever
 * the operation, so it counts as declared there.
 */
export function isDeclaredError(operation: Operation, status: number, code: number): boolean {
  const keys = errorKeysOf(status, code);
  if (operation.errors === 'resource' && keys.includes('invalidData')) return true;
  return keys.some((key) => PLATFORM_ERROR_KEYS.includes(key) || (operation.errorCodes ?? []).includes(key));
}
