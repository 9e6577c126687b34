-- What each account's URL cache stores (the stored-bytes quota's count), kept by a trigger on url_blobs, so a
-- quota check reads one row instead of summing the account's url_blobs (once per download, twice: before
-- fetching and before storing; an account of a million images would have made every download scan them).
-- The row is locked from the change to the commit: an account's cache changes serialise on it, other
-- accounts' never wait.

CREATE TABLE account_stored_bytes (
  account_id bigint PRIMARY KEY,
  bytes bigint NOT NULL DEFAULT 0
);

CREATE FUNCTION url_blobs_count_bytes() RETURNS trigger AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE account_stored_bytes SET bytes = bytes - OLD.bytes WHERE account_id = OLD.account_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO account_stored_bytes AS a (account_id, bytes) VALUES (NEW.account_id, NEW.bytes)
    ON CONFLICT (account_id) DO UPDATE SET bytes = a.bytes + EXCLUDED.bytes;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- No write to url_blobs between the count below and the trigger taking over.
LOCK TABLE url_blobs IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER url_blobs_stored_bytes AFTER INSERT OR UPDATE OR DELETE ON url_blobs FOR EACH ROW
  EXECUTE FUNCTION url_blobs_count_bytes();

INSERT INTO account_stored_bytes (account_id, bytes)
SELECT account_id, sum(bytes) FROM url_blobs GROUP BY account_id;
