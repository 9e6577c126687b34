-- Webhooks (docs/webhooks.md): endpoints an account registers, and an outbox of deliveries. A delivery row is
-- written in the same transaction as the state change it reports; any backend process claims due rows with a
-- lease (lease_until, claim), so a process killed mid-delivery leaves the row to the next one once it expires.
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  account_id bigint NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  description text NOT NULL DEFAULT '',
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at);

CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_type text NOT NULL,
  -- The exact body sent, so every attempt signs and sends the same bytes.
  body text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  claim text,
  http_status int,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  UNIQUE (endpoint_id, event_id)
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC);
CREATE INDEX webhook_deliveries_done ON webhook_deliveries (created_at) WHERE state <> 'pending';
