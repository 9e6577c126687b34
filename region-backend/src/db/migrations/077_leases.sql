-- Leases: claims of backend processes with an expiry the holder renews (docs/scale-out.md). A holder that
-- dies stops renewing and its lease expires; any process may then take it. Names: `instance:<id>` (a live
-- process, for the upload sweep), `index-writer:<cache id>` (the one process saving index files of a cache
-- directory).
CREATE TABLE leases (
  name text PRIMARY KEY,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX leases_expires ON leases (expires_at);
