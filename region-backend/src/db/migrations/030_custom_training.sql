-- Custom training: single-label classifier services trained on training sets, their models, and the
-- classifier features of stored images.

CREATE TABLE custom_services (
  id text PRIMARY KEY,
  account_id bigint NOT NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  scenario text NOT NULL DEFAULT 'classifier',
  -- no foreign key: a failed or deleted service keeps naming a training set that may be gone
  training_set_id text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'preparing', 'running', 'failed', 'deleted')),
  -- finer step while pending or preparing: queued, downloading, embedding, training; done or failed at the end
  stage text NOT NULL DEFAULT 'queued',
  progress real NOT NULL DEFAULT 0,
  message text,
  validation_accuracy real,
  -- label -> usable images, once known
  label_counts jsonb,
  -- unexpected errors of training runs in a row (a killed process is not counted: it resumes)
  run_failures integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX custom_services_account ON custom_services (account_id, created_at) WHERE status <> 'deleted';
CREATE INDEX custom_services_set ON custom_services (training_set_id) WHERE status IN ('pending', 'preparing', 'running');
CREATE INDEX custom_services_unfinished ON custom_services (created_at) WHERE status IN ('pending', 'preparing');

-- The trained classifier of a running service: p = softmax(W · ((x - mean) * scale) + b), float32 little-endian.
CREATE TABLE custom_service_models (
  service_id text PRIMARY KEY REFERENCES custom_services (id) ON DELETE CASCADE,
  feature_pipeline text NOT NULL,
  -- class order of the weight rows
  labels text[] NOT NULL,
  dim integer NOT NULL,
  mean bytea NOT NULL,
  scale bytea NOT NULL,
  weights bytea NOT NULL,
  bias bytea NOT NULL,
  -- what training measured (split sizes, chosen L2 strength, epochs, per-label validation results)
  report jsonb NOT NULL,
  trained_at timestamptz NOT NULL DEFAULT now()
);

-- Classifier features by image content (the blob store's key) and feature pipeline: computed once, shared by
-- every record, training set and service holding the same image. An image that cannot be decoded keeps a
-- row with an error instead of features, so no run tries it again.
CREATE TABLE classifier_features (
  blob_key text NOT NULL,
  pipeline text NOT NULL,
  features bytea,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (blob_key, pipeline),
  CHECK ((features IS NULL) <> (error IS NULL))
);
