/** Every domain the backend serves. Add a domain here to mount its routes and job types. */
import type { Domain } from './domain.js';
import { analysisDomain } from './analysis/analysis.routes.js';
import { badCasesDomain } from './bad-cases/bad-case.routes.js';
import { batchDomain } from './batch/batch.domain.js';
import { blobGcDomain } from './blob-gc/blob-gc.domain.js';
import { customTrainingDomain } from './custom-training/custom-training.domain.js';
import { downloadsDomain } from './downloads/downloads.domain.js';
import { fileUploadsDomain } from './file-uploads/file-upload.routes.js';
import { imageSetsDomain } from './image-sets/image-set.routes.js';
import { productSetsDomain } from './product-sets/product-set.routes.js';
import { searchEvaluationDomain } from './search-evaluation/evaluation.domain.js';
import { SEARCH_DOMAINS } from './search-services/search.domain.js';
import { trainingSetsDomain } from './training-sets/training-set.routes.js';
import { logosDomain } from './logos/logo.routes.js';
import { registryDomain } from './registry/registry.routes.js';
import { revocationDomain } from './revocation/revocation.routes.js';
import { setRecordsDomain } from './set-records/set-records.routes.js';
import { webhooksDomain } from './webhooks/webhooks.domain.js';
import { usageDomain } from './usage/usage.domain.js';
import { exportDomain } from './export/export.routes.js';

// usage first: the others count into its meter.
export const DOMAINS: Domain[] = [usageDomain, analysisDomain, badCasesDomain, blobGcDomain, downloadsDomain, imageSetsDomain, productSetsDomain, trainingSetsDomain, customTrainingDomain, ...SEARCH_DOMAINS, searchEvaluationDomain, batchDomain, logosDomain, registryDomain, revocationDomain, setRecordsDomain, webhooksDomain, exportDomain, fileUploadsDomain];
