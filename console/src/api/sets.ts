/** Data-set calls shared by several pages: listing each kind and the paths of each kind's operations. */
import { api } from './client.js';
import type { CountedSet, DataSet, RecordPage, SetKind } from './types.js';

export const SET_PATHS: Record<SetKind, string> = {
  image_sets: '/image_sets/_0000014',
  product_sets: '/product_sets/_0000178',
  training_sets: '/custom_training/_0000194/training_sets',
};

export async function listSets(kind: 'image_sets' | 'training_sets'): Promise<CountedSet[]>;
export async function listSets(kind: SetKind): Promise<DataSet[]>;
export async function listSets(kind: SetKind): Promise<DataSet[]> {
  return (await api<{ results: DataSet[] }>(SET_PATHS[kind])).results;
}

/** Sets with their record counts; product sets get theirs from the record listing (their objects carry none). */
export async function listSetsWithCounts(kind: SetKind): Promise<DataSet[]> {
  const sets = await listSets(kind);
  if (kind !== 'product_sets') return sets;
  return Promise.all(
    sets.map(async (set) => {
      const p = await api<RecordPage>(`${recordsPath(kind, set.id)}?count=1`);
      return { ...set, n_items: p.n_items, n_downloaded: p.n_downloaded, n_failed: p.n_failed };
    }),
  );
}

/** Where a kind's bulk file goes, and under which field name. */
export const BULK_UPLOAD: Record<SetKind, { path: (id: string) => string; field: string; accept: string }> = {
  image_sets: { path: (id) => `${SET_PATHS.image_sets}/${id}`, field: 'urls_to_add', accept: '.csv,.txt,.gz,.tgz,text/csv' },
  product_sets: { path: (id) => `${SET_PATHS.product_sets}/${id}/products`, field: 'products_to_add', accept: '.jsonl,.json,.txt,.gz,.tgz' },
  training_sets: { path: (id) => `${SET_PATHS.training_sets}/${id}/images`, field: 'urls_to_add', accept: '.csv,.txt,.gz,.tgz,text/csv' },
};

export function recordsPath(kind: SetKind, id: string): string {
  return `/iris/${kind}/${encodeURIComponent(id)}/records`;
}

export function isBusy(set: DataSet): boolean {
  return set.status === 'downloading' || (set.status === 'not-downloaded' && 'n_items' in set && set.n_items > set.n_failed);
}
