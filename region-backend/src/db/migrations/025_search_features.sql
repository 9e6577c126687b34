-- Compact local features (ORB keypoints and descriptors, see embedding/local-features.ts) of each embedded
-- image, for geometric re-ranking of search results. Null for embeddings of pipelines without them.
ALTER TABLE image_embeddings ADD COLUMN features bytea;
