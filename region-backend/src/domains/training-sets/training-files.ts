/** Row rule of the training data add file: CSV `url,label` (the delete file's rule is shared, in data-sets). */
import { BulkFileError, type CsvRow } from '../data-sets/bulk-rows.js';
import { recordInput, type RecordInput } from '../data-sets/record.repo.js';
import { recordUrl, trainingLabel } from '../data-sets/record-rules.js';

/** `url,label`; a header row (`url,label`) is refused as wrong data format, like any first column that is not a URL. */
export function trainingRowToAdd(row: CsvRow): RecordInput | null {
  if (row.cells.length > 2) throw new BulkFileError(row.line, 'more than two columns: url and label must not contain a comma');
  if (row.cells.length < 2) throw new BulkFileError(row.line, 'expected two columns: url,label');
  const url = recordUrl(row.cells[0]);
  if (url.includes(',')) throw new BulkFileError(row.line, 'the url contains a comma');
  return recordInput({ url, label: trainingLabel(row.cells[1]) });
}
