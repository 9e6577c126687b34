-- Reports of bad results (POST /bad_cases/_0000204).
CREATE TABLE bad_cases (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL,
  service_id text NOT NULL,
  request_id text NOT NULL,
  description text NOT NULL DEFAULT '',
  details text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'open',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bad_cases_account ON bad_cases (account_id, created_at);
