-- Data sets: image sets, the hidden image sets bound to product sets, training sets, and their records.

CREATE TABLE data_sets (
  id text PRIMARY KEY,
  account_id bigint NOT NULL,
  -- product_images: the image set bound to a product set (internal, not listed, not in the edge registry)
  kind text NOT NULL CHECK (kind IN ('image_set', 'product_images', 'training_set')),
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  modified_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX data_sets_account ON data_sets (account_id, kind, created_at);

-- One sequence for every record change, so an indexer can ask "what changed in set S since seq N".
CREATE SEQUENCE data_set_record_change_seq;

CREATE TABLE data_set_records (
  id bigserial PRIMARY KEY,
  set_id text NOT NULL REFERENCES data_sets (id) ON DELETE CASCADE,
  url text NOT NULL,
  -- '' outside product sets; a product may have several images (several records)
  product_id text NOT NULL DEFAULT '',
  record_key text GENERATED ALWAYS AS (md5(product_id || chr(10) || url)) STORED,
  meta text NOT NULL DEFAULT '',
  tags text[] NOT NULL DEFAULT '{}',
  label text NOT NULL DEFAULT '',
  price text NOT NULL DEFAULT '',
  keywords text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'downloading', 'downloaded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  blob_key text,
  width integer,
  height integer,
  change_seq bigint NOT NULL DEFAULT nextval('data_set_record_change_seq'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- soft delete: the row stays as a tombstone (visible to change readers) until purged
  deleted_at timestamptz
);
CREATE UNIQUE INDEX data_set_records_live_key ON data_set_records (set_id, record_key) WHERE deleted_at IS NULL;
CREATE INDEX data_set_records_changes ON data_set_records (set_id, change_seq);
CREATE INDEX data_set_records_counts ON data_set_records (set_id, status) WHERE deleted_at IS NULL;
CREATE INDEX data_set_records_url ON data_set_records (set_id, url) WHERE deleted_at IS NULL;
CREATE INDEX data_set_records_product ON data_set_records (set_id, product_id) WHERE deleted_at IS NULL;
CREATE INDEX data_set_records_work ON data_set_records (set_id, next_attempt_at) WHERE deleted_at IS NULL AND status IN ('pending', 'downloading');
CREATE INDEX data_set_records_tombstones ON data_set_records (deleted_at) WHERE deleted_at IS NOT NULL;

-- Every change an indexer could care about takes a new change_seq; claiming, retry scheduling and lease
-- renewal (pending <-> downloading) do not. Writers that take a change_seq hold the set's row lock
-- (see data-sets/record.repo.ts), so within one set change_seq order is commit order.
CREATE FUNCTION data_set_records_touch() RETURNS trigger AS $$
BEGIN
  IF (NEW.url, NEW.product_id, NEW.meta, NEW.tags, NEW.label, NEW.price, NEW.keywords,
      CASE WHEN NEW.status IN ('pending', 'downloading') THEN 'pending' ELSE NEW.status END, NEW.blob_key, NEW.deleted_at)
     IS DISTINCT FROM
     (OLD.url, OLD.product_id, OLD.meta, OLD.tags, OLD.label, OLD.price, OLD.keywords,
      CASE WHEN OLD.status IN ('pending', 'downloading') THEN 'pending' ELSE OLD.status END, OLD.blob_key, OLD.deleted_at) THEN
    NEW.change_seq := nextval('data_set_record_change_seq');
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER data_set_records_touch BEFORE UPDATE ON data_set_records
  FOR EACH ROW EXECUTE FUNCTION data_set_records_touch();

-- Downloaded URLs per account: the same URL added to another set is not downloaded again.
CREATE TABLE url_blobs (
  account_id bigint NOT NULL,
  url text NOT NULL,
  blob_key text NOT NULL,
  width integer NOT NULL,
  height integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, url)
);

CREATE TABLE product_sets (
  id text PRIMARY KEY,
  account_id bigint NOT NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  image_set_id text NOT NULL REFERENCES data_sets (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  modified_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX product_sets_account ON product_sets (account_id, created_at);
