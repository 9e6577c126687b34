-- Secrets at rest: access keys are found by the SHA-256 of their id (the id itself is not stored, only a
-- short hint for operators) and their secrets are stored AES-GCM encrypted under the Worker secret
-- SECRETS_MASTER_KEY. SQL cannot hash or encrypt, so existing rows move to legacy_access_keys and the edge
-- converts each one on its first use (or all of an account's when the admin API lists them); see docs/edge.md.
ALTER TABLE access_keys RENAME TO legacy_access_keys;
DROP INDEX IF EXISTS access_keys_account;
CREATE INDEX legacy_access_keys_account ON legacy_access_keys (account_id);

CREATE TABLE access_keys (
  key_hash            TEXT    PRIMARY KEY,            -- hex SHA-256 of the key id
  key_hint            TEXT    NOT NULL,               -- first characters of the id, for listings
  secret_enc          TEXT    NOT NULL,               -- v1:base64(iv ‖ AES-256-GCM(secret)), key_hash as associated data
  account_id          INTEGER NOT NULL REFERENCES accounts (id),
  enabled             INTEGER NOT NULL DEFAULT 1,
  signature_required  INTEGER NOT NULL DEFAULT 0,
  created_at          INTEGER NOT NULL
);
CREATE INDEX access_keys_account ON access_keys (account_id);

-- Nonces are kept per key hash from now on (old rows expire within the signature window).
DELETE FROM signature_nonces;
