/**
 * Whether a data set is in use (a search service on it, a training run on it): other domains register
 * checkers; deleting or clearing a set in use is refused with 403/3001.
 */
import { ApiError } from '@iris/shared';

export type SetUsageCheck = (setId: string) => Promise<boolean>;

const checks: SetUsageCheck[] = [];

/**
 * Registers a checker answering true when the set (image, product or training set id) is in use. Returns
 * the function that removes it again (call it from the registering app's onClose).
 */
export function registerSetUsageCheck(fn: SetUsageCheck): () => void {
  if (!checks.includes(fn)) checks.push(fn);
  return () => {
    const index = checks.indexOf(fn);
    if (index >= 0) checks.splice(index, 1);
  };
}

export async function isSetInUse(setIds: string[]): Promise<boolean> {
  for (const check of checks) {
    for (const id of setIds) if (await check(id)) return true;
  }
  return false;
}

/** Throws 403/3001 when any checker says one of the ids is in use. */
export async function assertSetNotInUse(setIds: string[], what: string): Promise<void> {
  if (await isSetInUse(setIds)) throw new ApiError('inUse', `${what} is in use by a service and cannot be changed this way`);
}
