/** Row rule of the image-set add file: CSV `url,meta,tags` (the delete file's rule is shared, in data-sets). */
import { BulkFileError, type CsvRow } from '../data-sets/bulk-rows.js';
import { recordInput, type RecordInput } from '../data-sets/record.repo.js';
import { recordMeta, recordTags, recordUrl } from '../data-sets/record-rules.js';

/** `url,meta,tags` (meta and tags optional); more than three columns, or a first column that is not a URL (a header row too), refuses the file. */
export function imageRowToAdd(row: CsvRow): RecordInput | null {
  if (row.cells.length > 3) throw new BulkFileError(row.line, `${row.cells.length} columns; at most three (url, meta, tags) are allowed`);
  return recordInput({ url: recordUrl(row.cells[0]), meta: recordMeta(row.cells[1]), tags: recordTags(row.cells[2]) });
}
