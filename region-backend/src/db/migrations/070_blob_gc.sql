-- Blob garbage collection (domains/blob-gc): one row per file of the blob store, and what the collector must
-- look at. A blob is referenced by live data-set records, the per-account URL cache (url_blobs) and live
-- search index items; when a reference goes, a trigger queues the blob and the collector deletes the file,
-- then the row, once nothing refers to it. Protocol (see blob-refs.repo.ts): writers and the collector take a per-blob advisory
-- lock around file writes and unlinks; every statement that stores a reference first takes the blob's row
-- FOR SHARE and requires state 'live'; the collector takes it FOR UPDATE before checking references.

CREATE TABLE stored_blobs (
  blob_key text PRIMARY KEY,
  bytes bigint NOT NULL DEFAULT 0,
  -- 'deleting': the collector decided to delete the file (committed before the unlink, so a crash after it
  -- leaves a row the next sweep finishes); writers bring it back to 'live' and re-create the file.
  state text NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'deleting')),
  -- the last time a writer stored these bytes: a blob younger than the grace period is never collected
  touched_at timestamptz NOT NULL DEFAULT now(),
  -- when the collector should look at the blob (new blobs after the grace period; NULL: nothing planned)
  gc_after timestamptz
);
CREATE INDEX stored_blobs_due ON stored_blobs (gc_after) WHERE gc_after IS NOT NULL;

-- Blobs that lost a reference. Append-only for the triggers (no row locks, so concurrent deletes of records
-- sharing images never wait on each other); the collector deletes entries after handling their blobs.
CREATE TABLE blob_gc_queue (
  id bigserial PRIMARY KEY,
  blob_key text NOT NULL,
  queued_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX data_set_records_blob ON data_set_records (blob_key) WHERE deleted_at IS NULL AND blob_key IS NOT NULL;
CREATE INDEX url_blobs_blob ON url_blobs (blob_key);
CREATE INDEX search_index_items_blob ON search_index_items (blob_key) WHERE deleted_at IS NULL;

-- Blobs written before this migration: every key something refers to, checked once by the collector.
INSERT INTO stored_blobs (blob_key, bytes, touched_at, gc_after)
SELECT blob_key, max(bytes), now(), now() FROM url_blobs GROUP BY blob_key
ON CONFLICT DO NOTHING;
INSERT INTO stored_blobs (blob_key, touched_at, gc_after)
SELECT DISTINCT blob_key, now(), now() FROM data_set_records WHERE blob_key IS NOT NULL
ON CONFLICT DO NOTHING;
INSERT INTO stored_blobs (blob_key, touched_at, gc_after)
SELECT DISTINCT blob_key, now(), now() FROM search_index_items
ON CONFLICT DO NOTHING;

CREATE FUNCTION blob_reference_dropped() RETURNS trigger AS $$
BEGIN
  INSERT INTO blob_gc_queue (blob_key) VALUES (OLD.blob_key);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER data_set_records_blob_dropped AFTER UPDATE ON data_set_records FOR EACH ROW
  WHEN (OLD.blob_key IS NOT NULL AND OLD.deleted_at IS NULL AND (NEW.deleted_at IS NOT NULL OR NEW.blob_key IS DISTINCT FROM OLD.blob_key))
  EXECUTE FUNCTION blob_reference_dropped();
CREATE TRIGGER data_set_records_blob_deleted AFTER DELETE ON data_set_records FOR EACH ROW
  WHEN (OLD.blob_key IS NOT NULL AND OLD.deleted_at IS NULL)
  EXECUTE FUNCTION blob_reference_dropped();

CREATE TRIGGER url_blobs_blob_dropped AFTER UPDATE ON url_blobs FOR EACH ROW
  WHEN (NEW.blob_key IS DISTINCT FROM OLD.blob_key)
  EXECUTE FUNCTION blob_reference_dropped();
CREATE TRIGGER url_blobs_blob_deleted AFTER DELETE ON url_blobs FOR EACH ROW
  EXECUTE FUNCTION blob_reference_dropped();

CREATE TRIGGER search_index_items_blob_dropped AFTER UPDATE ON search_index_items FOR EACH ROW
  WHEN (OLD.deleted_at IS NULL AND (NEW.deleted_at IS NOT NULL OR NEW.blob_key IS DISTINCT FROM OLD.blob_key))
  EXECUTE FUNCTION blob_reference_dropped();
CREATE TRIGGER search_index_items_blob_deleted AFTER DELETE ON search_index_items FOR EACH ROW
  WHEN (OLD.deleted_at IS NULL)
  EXECUTE FUNCTION blob_reference_dropped();

-- The stored-bytes quota the edge last sent for each account, so queued downloads (which run without a
-- request) check the same limit before storing an image.
CREATE TABLE account_stored_bytes_quota (
  account_id bigint PRIMARY KEY,
  stored_bytes bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
