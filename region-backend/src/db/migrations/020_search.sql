-- Search services, their durable index contents, and image embeddings.

-- One row per search service (on an image set, or on the image set bound to a product set).
CREATE TABLE search_services (
  id text PRIMARY KEY,
  account_id bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('image_set', 'product_set')),
  name text NOT NULL,
  scenario text NOT NULL,
  -- the data set whose records are indexed (an image set, or a product set's bound image set)
  set_id text NOT NULL REFERENCES data_sets (id) ON DELETE CASCADE,
  product_set_id text REFERENCES product_sets (id) ON DELETE CASCADE,
  -- embedding pipeline (model version + scenario views) the index is built with
  pipeline text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- last modification (rename, or an index change); null until the first one
  updated_at timestamptz,
  -- last index update that changed something; null until the first one
  indexed_at timestamptz,
  -- the data set's change_seq up to which changes have been applied to the index
  source_seq bigint NOT NULL DEFAULT 0,
  -- highest search_index_items.seq of this service: the index version every process catches up to
  index_seq bigint NOT NULL DEFAULT 0,
  -- highest seq of a purged item tombstone: a process whose copy is older must rebuild
  purged_seq bigint NOT NULL DEFAULT 0,
  n_indexed integer NOT NULL DEFAULT 0,
  -- last time the indexer had applied every change (tombstones of the set are purged after 7 days)
  caught_up_at timestamptz
);
CREATE INDEX search_services_account ON search_services (account_id, created_at);
CREATE INDEX search_services_set ON search_services (set_id);
CREATE INDEX search_services_product_set ON search_services (product_set_id) WHERE product_set_id IS NOT NULL;

-- What each service's index holds (its own change feed: every change takes a new seq). Deleted items stay
-- as tombstones for a day so processes catching up see the removal.
CREATE SEQUENCE search_index_item_seq;

CREATE TABLE search_index_items (
  service_id text NOT NULL REFERENCES search_services (id) ON DELETE CASCADE,
  record_id bigint NOT NULL,
  blob_key text NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  seq bigint NOT NULL,
  deleted_at timestamptz,
  PRIMARY KEY (service_id, record_id)
);
CREATE INDEX search_index_items_seq ON search_index_items (service_id, seq);

-- Embeddings by image content (the blob store's key) and pipeline: computed once, shared by every record,
-- set and service that holds the same image.
CREATE TABLE image_embeddings (
  blob_key text NOT NULL,
  pipeline text NOT NULL,
  -- EMBEDDING_DIM float32 values, little-endian
  vector bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (blob_key, pipeline)
);
