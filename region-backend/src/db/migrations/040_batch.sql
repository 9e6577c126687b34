-- Batch tasks (/batch/_1000001): one row per task, one row per input line while the task is unfinished.

CREATE TABLE batch_tasks (
  id text PRIMARY KEY,
  account_id bigint NOT NULL,
  service_id text NOT NULL,
  -- extra parameters of prepare handed to the service (granularity, return_type, count, loc, topk)
  params jsonb NOT NULL DEFAULT '{}',
  lang text NOT NULL DEFAULT 'en',
  state text NOT NULL CHECK (state IN ('RECEIVED', 'PENDING', 'STARTED', 'SUCCESS', 'REVOKED', 'FAILURE')),
  total integer NOT NULL,
  -- lines answered so far (a result or an error line)
  success integer NOT NULL DEFAULT 0,
  result_files text[] NOT NULL DEFAULT '{}',
  -- why a task ended in FAILURE (logs and operators; not part of the API)
  message text,
  received_at timestamptz NOT NULL DEFAULT now(),
  applied_at timestamptz,
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX batch_tasks_account ON batch_tasks (account_id, received_at);
CREATE INDEX batch_tasks_applied ON batch_tasks (account_id, applied_at) WHERE applied_at IS NOT NULL;
CREATE INDEX batch_tasks_queue ON batch_tasks (applied_at) WHERE state IN ('PENDING', 'STARTED');
-- The specification's "one running task per account and service" (400010), enforced by the database.
CREATE UNIQUE INDEX batch_tasks_one_active ON batch_tasks (account_id, service_id) WHERE state IN ('PENDING', 'STARTED');

CREATE TABLE batch_items (
  task_id text NOT NULL REFERENCES batch_tasks (id) ON DELETE CASCADE,
  -- 0-based index of the line in the uploaded file (empty lines count)
  line integer NOT NULL,
  url text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done')),
  attempts integer NOT NULL DEFAULT 0,
  claim_token text,
  lease_until timestamptz,
  -- the complete JSON line of the result file, written once
  output text,
  PRIMARY KEY (task_id, line)
);
CREATE INDEX batch_items_work ON batch_items (task_id, line) WHERE state <> 'done';

-- Rolling average of wall-clock seconds per image, per service, from finished work (estimates).
CREATE TABLE batch_service_rates (
  service_id text PRIMARY KEY,
  seconds_per_image double precision NOT NULL,
  samples bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
