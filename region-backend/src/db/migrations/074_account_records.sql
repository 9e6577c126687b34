-- Live data-set records per account (the records-per-account quota's count), kept by triggers, so an add
-- reads one row instead of counting every live record of the account (an account of a million records would
-- have made each add scan them). Statement-level triggers see all rows a statement changed at once; a
-- statement that changes no account's count (a download claiming or completing a record) writes nothing.
-- Records deleted with their set (ON DELETE CASCADE) are subtracted by the set's own trigger, before the
-- cascade: by then the records' trigger no longer finds their set, so they are not counted twice.

CREATE TABLE account_records (
  account_id bigint PRIMARY KEY,
  records bigint NOT NULL DEFAULT 0
);

-- Adds per-set changes of live records to their accounts' counts; changes that cancel out write nothing.
CREATE FUNCTION account_records_add(set_ids text[], changes bigint[]) RETURNS void AS $$
  INSERT INTO account_records AS a (account_id, records)
  SELECT s.account_id, sum(d.n) FROM unnest(set_ids, changes) AS d(set_id, n) JOIN data_sets s ON s.id = d.set_id
  GROUP BY s.account_id HAVING sum(d.n) <> 0
  ON CONFLICT (account_id) DO UPDATE SET records = a.records + EXCLUDED.records;
$$ LANGUAGE sql;

CREATE FUNCTION data_set_records_inserted() RETURNS trigger AS $$
BEGIN
  PERFORM account_records_add(array_agg(set_id), array_agg(n))
  FROM (SELECT set_id, count(*) AS n FROM added WHERE deleted_at IS NULL GROUP BY set_id) d;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION data_set_records_updated() RETURNS trigger AS $$
BEGIN
  PERFORM account_records_add(array_agg(set_id), array_agg(n))
  FROM (SELECT set_id, count(*) AS n FROM after_rows WHERE deleted_at IS NULL GROUP BY set_id
        UNION ALL
        SELECT set_id, -count(*) FROM before_rows WHERE deleted_at IS NULL GROUP BY set_id) d;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION data_set_records_deleted() RETURNS trigger AS $$
BEGIN
  PERFORM account_records_add(array_agg(set_id), array_agg(-n))
  FROM (SELECT set_id, count(*) AS n FROM removed WHERE deleted_at IS NULL GROUP BY set_id) d;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION data_sets_deleted_records() RETURNS trigger AS $$
BEGIN
  PERFORM account_records_add(ARRAY[OLD.id], ARRAY[-(SELECT count(*) FROM data_set_records WHERE set_id = OLD.id AND deleted_at IS NULL)]);
  RETURN OLD;
END;
$$ LANGUAGE plpgsql;

-- No write to the records or sets between the count below and the triggers taking over.
LOCK TABLE data_sets, data_set_records IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER data_set_records_count_inserted AFTER INSERT ON data_set_records
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION data_set_records_inserted();
CREATE TRIGGER data_set_records_count_updated AFTER UPDATE ON data_set_records
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION data_set_records_updated();
CREATE TRIGGER data_set_records_count_deleted AFTER DELETE ON data_set_records
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION data_set_records_deleted();
CREATE TRIGGER data_sets_count_deleted_records BEFORE DELETE ON data_sets
  FOR EACH ROW EXECUTE FUNCTION data_sets_deleted_records();

INSERT INTO account_records (account_id, records)
SELECT s.account_id, count(*) FROM data_set_records r JOIN data_sets s ON s.id = r.set_id
WHERE r.deleted_at IS NULL GROUP BY s.account_id;
