-- Iris edge registry (D1). Times are milliseconds since the epoch.

CREATE TABLE accounts (
  id          INTEGER PRIMARY KEY AUTOINCREMENT, -- the API's creator_id; 0 is reserved for operator calls
  name        TEXT    NOT NULL,
  disabled    INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL
);

CREATE TABLE access_keys (
  key_id              TEXT    PRIMARY KEY,
  secret              TEXT    NOT NULL,
  account_id          INTEGER NOT NULL REFERENCES accounts (id),
  enabled             INTEGER NOT NULL DEFAULT 1,
  signature_required  INTEGER NOT NULL DEFAULT 0,
  created_at          INTEGER NOT NULL
);
CREATE INDEX access_keys_account ON access_keys (account_id);

-- One row per account that overrides a default; a NULL column keeps DEFAULT_QUOTAS for that quota.
CREATE TABLE account_quotas (
  account_id         INTEGER PRIMARY KEY REFERENCES accounts (id),
  image_sets         INTEGER,
  training_sets      INTEGER,
  custom_services    INTEGER,
  daily_batch_tasks  INTEGER,
  updated_at         INTEGER NOT NULL
);

-- Explicit grant (granted = 1) or revocation (granted = 0) of a ready-made analysis service.
-- Without a row the edge's DEFAULT_GRANTS setting decides (default: granted).
CREATE TABLE service_grants (
  account_id  INTEGER NOT NULL REFERENCES accounts (id),
  service_id  TEXT    NOT NULL,
  granted     INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (account_id, service_id)
);

CREATE TABLE resources (
  id          TEXT    PRIMARY KEY,
  kind        TEXT    NOT NULL CHECK (kind IN ('image_set', 'product_set', 'training_set', 'search_service', 'custom_service', 'batch_task')),
  account_id  INTEGER NOT NULL REFERENCES accounts (id),
  region      TEXT    NOT NULL,
  state       TEXT    NOT NULL CHECK (state IN ('pending', 'live', 'deleted')),
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX resources_account_kind_state ON resources (account_id, kind, state);

-- Signature nonces seen within the allowed clock skew (replay protection); expired rows are purged as
-- signed requests arrive.
CREATE TABLE signature_nonces (
  key_id      TEXT    NOT NULL,
  nonce       TEXT    NOT NULL,
  expires_at  INTEGER NOT NULL,
  PRIMARY KEY (key_id, nonce)
);
CREATE INDEX signature_nonces_expiry ON signature_nonces (expires_at);
