-- Bytes each account keeps in the blob store (the stored-bytes quota): the size of each URL's stored image.
ALTER TABLE url_blobs ADD COLUMN bytes bigint NOT NULL DEFAULT 0;
