/** What other domains (search indexing, training) use from the data sets. */
export { listRecordChanges, listDownloadedRecords, lastChangeSeq, purgeRecordTombstones, type RecordChange } from './record-feed.js';
export { registerSetUsageCheck, isSetInUse, type SetUsageCheck } from './set-usage.js';
export { findDataSet, findDataSetById, type DataSetRow, type SetKind } from './set.repo.js';
export { setStatus, dataSetObject, type SetStatus } from './set-view.js';
export { findProductSet, type ProductSetRow } from '../product-sets/product-set.repo.js';
