-- Product attributes of each index item (price, keywords), so that a store that filters on them (pgvector,
-- in SQL) holds them, and a change of price or keywords reaches the index like a change of tags does.
ALTER TABLE search_index_items
  ADD COLUMN price text NOT NULL DEFAULT '',
  ADD COLUMN keywords text NOT NULL DEFAULT '';

UPDATE search_index_items i SET price = r.price, keywords = r.keywords
FROM data_set_records r
WHERE r.id = i.record_id AND (r.price <> '' OR r.keywords <> '');
