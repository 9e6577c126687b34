-- Keys an account manages itself (docs/tenants.md, "Access keys"): a public reference to name a key by (the
-- id itself may be a bearer credential and is stored only as its hash), a name, scopes (NULL: every scope,
-- as before), an expiry, and the key it replaced when rotated. Accounts may require signatures for all
-- their keys. The audit log records admin actions, key changes and deletes.
ALTER TABLE access_keys ADD COLUMN key_ref TEXT;
ALTER TABLE access_keys ADD COLUMN name TEXT;
ALTER TABLE access_keys ADD COLUMN scopes TEXT;            -- comma-separated scope names; NULL = full access
ALTER TABLE access_keys ADD COLUMN expires_at INTEGER;     -- ms since the epoch; NULL = never
ALTER TABLE access_keys ADD COLUMN rotated_from TEXT;      -- key_ref of the key this one replaced
UPDATE access_keys SET key_ref = 'kr' || lower(hex(randomblob(10))) WHERE key_ref IS NULL;
CREATE UNIQUE INDEX access_keys_ref ON access_keys (key_ref);

ALTER TABLE accounts ADD COLUMN signature_required INTEGER NOT NULL DEFAULT 0;

CREATE TABLE audit_log (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  at          INTEGER NOT NULL,                -- ms since the epoch
  account_id  INTEGER,                         -- the account acted on (NULL: an operator call about no account)
  actor       TEXT    NOT NULL CHECK (actor IN ('key', 'operator')),
  key_ref     TEXT,                            -- the calling key (actor = key)
  request_id  TEXT    NOT NULL,
  method      TEXT    NOT NULL,
  path        TEXT    NOT NULL,
  target_id   TEXT,
  status      INTEGER NOT NULL,
  outcome     TEXT    NOT NULL CHECK (outcome IN ('ok', 'refused', 'failed')),
  detail      TEXT                             -- what changed, as short JSON (never a secret)
);
CREATE INDEX audit_log_account ON audit_log (account_id, id);
CREATE INDEX audit_log_at ON audit_log (at);
