/** The shapes of the public API answers the console reads (see docs/data-sets.md, search.md, batch.md). */
export interface DataSet {
  id: string;
  name: string;
  description: string;
  created_at: string;
  modified_at?: string;
  status: string;
  n_items?: number;
  n_downloaded?: number;
  n_failed?: number;
  image_set_id?: string;
}

export type SetKind = 'image_sets' | 'product_sets' | 'training_sets';

export interface RecordRow {
  id: string;
  url: string;
  meta: string;
  tags: string[];
  label: string;
  product_id: string;
  price: string;
  keywords: string;
  status: 'pending' | 'downloaded' | 'failed';
  last_error: string | null;
  width: number | null;
  height: number | null;
}

export interface RecordPage {
  page: number;
  count: number;
  /** Records matching the status filter. */
  total: number;
  n_items: number;
  n_downloaded: number;
  n_failed: number;
  results: RecordRow[];
}

export interface SearchService {
  id: string;
  name: string;
  scenario: string;
  image_set_id: string;
  product_set_id?: string;
  n_indexed: number;
  /** Indexed pictures whose second pass (thumbnail views, keypoints) is still to run. */
  n_first_pass_only: number;
  indexed_ratio: number;
  last_indexed_time: string | null;
  status: string;
  type?: number;
}

export interface SearchHit {
  url: string;
  score: number;
  metadata?: string;
  tags?: string[] | string;
  product_id?: string;
  price?: string | number;
  keywords?: string | string[];
  /** Iris extension: where a geometrically verified match lies in the query and in this picture. */
  matched_region?: { query: [number, number, number, number]; result: [number, number, number, number]; inliers: number };
}

export interface CustomService {
  id: string;
  name: string;
  description?: string;
  status: string;
  stage?: string;
  progress?: number;
  validation_accuracy: number | null;
  label_counts?: Record<string, number>;
  training_set_id: string;
  message?: string;
}

export interface BatchTask {
  task_id: string;
  service_id: string;
  state: string;
  total: number;
  success?: number;
  received_time: string;
  download_urls?: string[];
  csv?: string;
}

export interface LabelCount {
  label: string;
  total: number;
  downloaded: number;
  failed: number;
}
