-- Indexing in two passes (docs/search.md, "Two passes"): a first pass embeds a picture's scenario views and
-- makes it searchable; a second pass adds its thumbnail views and ORB keypoints. Between the two, the
-- embedding has no features yet and keeps the first pass's view sum (pre-whitening descriptor sum) that the
-- second pass completes; a service's item says it still holds the first-pass vector, so each service takes
-- the completed vector into its index once (another service may have completed the shared embedding).

ALTER TABLE image_embeddings ADD COLUMN view_sum bytea;

ALTER TABLE search_index_items ADD COLUMN first_pass_only boolean NOT NULL DEFAULT false;

CREATE INDEX search_index_items_first_pass ON search_index_items (service_id, record_id) WHERE first_pass_only AND deleted_at IS NULL;
