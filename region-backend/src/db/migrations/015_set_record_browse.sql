-- Browsing a set's records page by page in record order (the console's thumbnail grid, failed records).
CREATE INDEX IF NOT EXISTS data_set_records_browse ON data_set_records (set_id, id) WHERE deleted_at IS NULL;
