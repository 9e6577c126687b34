-- The stored-bytes count of each account (073_account_stored_bytes.sql) kept by statement-level triggers
-- instead of a trigger per row: a wave of downloads recorded in one statement updates each account's count
-- once. The account's row is still locked from the change to the commit.

CREATE FUNCTION url_blobs_count_bytes_set() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO account_stored_bytes AS a (account_id, bytes)
    SELECT account_id, sum(bytes) FROM new_rows GROUP BY account_id ORDER BY account_id
    ON CONFLICT (account_id) DO UPDATE SET bytes = a.bytes + EXCLUDED.bytes;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO account_stored_bytes AS a (account_id, bytes)
    SELECT account_id, sum(d) FROM (SELECT account_id, bytes AS d FROM new_rows UNION ALL SELECT account_id, -bytes FROM old_rows) c
    GROUP BY account_id HAVING sum(d) <> 0 ORDER BY account_id
    ON CONFLICT (account_id) DO UPDATE SET bytes = a.bytes + EXCLUDED.bytes;
  ELSE
    UPDATE account_stored_bytes a SET bytes = a.bytes - d.bytes
    FROM (SELECT account_id, sum(bytes) AS bytes FROM old_rows GROUP BY account_id) d WHERE a.account_id = d.account_id;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER url_blobs_stored_bytes ON url_blobs;
DROP FUNCTION url_blobs_count_bytes();

CREATE TRIGGER url_blobs_stored_bytes_inserted AFTER INSERT ON url_blobs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION url_blobs_count_bytes_set();
CREATE TRIGGER url_blobs_stored_bytes_updated AFTER UPDATE ON url_blobs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION url_blobs_count_bytes_set();
CREATE TRIGGER url_blobs_stored_bytes_deleted AFTER DELETE ON url_blobs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION url_blobs_count_bytes_set();
