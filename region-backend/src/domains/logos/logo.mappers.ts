/** Response bodies of the operator's logo API. */
import { formatTime } from '@iris/shared';
import { logoPuid } from '../analysis/logo/logo.handler.js';
import type { BrandRow, ReferenceSummaryRow } from './logo.repo.js';
import type { BrandDetails } from './logo.service.js';

export function brandView(row: BrandRow) {
  return {
    id: row.id,
    puid: logoPuid(row.id),
    brand: row.name,
    brand_zh: row.name_zh,
    n_images: row.n_images,
    created_at: formatTime(row.created_at),
    updated_at: formatTime(row.updated_at),
  };
}

export function referenceView(row: ReferenceSummaryRow) {
  return { id: row.id, filename: row.filename, width: row.width, height: row.height, n_keypoints: row.n_keypoints, created_at: formatTime(row.created_at) };
}

export function brandDetailsView(details: BrandDetails, requestId: string) {
  return { ...brandView(details.brand), images: details.images.map(referenceView), request_id: requestId };
}
