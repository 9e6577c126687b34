/** The two required parameters of the colour services. */
import { ApiError } from '@iris/shared';

export const GRANULARITIES = ['major', 'detailed', 'dominant'] as const;
export const RETURN_TYPES = ['basic', 'w3c', 'ncs', 'cncs'] as const;
export type Granularity = (typeof GRANULARITIES)[number];
export type ReturnType = (typeof RETURN_TYPES)[number];

export interface ColorParams {
  granularity: Granularity;
  returnType: ReturnType;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T {
  const v = value?.trim().toLowerCase();
  if (!v) throw new ApiError('analysisBadRequest', `${name} is required (one of ${allowed.join(', ')})`);
  if (!(allowed as readonly string[]).includes(v)) {
    throw new ApiError('analysisBadRequest', `invalid ${name} "${value}" (one of ${allowed.join(', ')})`);
  }
  return v as T;
}

/** Throws `ApiError` 400 (error_code 400) when either parameter is missing or not one of its values. */
export function parseColorParams(params: Record<string, string>): ColorParams {
  return {
    granularity: oneOf(params.granularity, GRANULARITIES, 'granularity'),
    returnType: oneOf(params.return_type, RETURN_TYPES, 'return_type'),
  };
}
