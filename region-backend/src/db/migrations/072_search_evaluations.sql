-- Self-evaluations of search services (POST/GET /customer_services/_0000172/{id}/evaluation): the latest
-- evaluation of each service, its sample and the outcome of every query answered so far (resumable).
CREATE TABLE search_evaluations (
  id text PRIMARY KEY,
  service_id text NOT NULL REFERENCES search_services (id) ON DELETE CASCADE,
  account_id bigint NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
  sample_size integer NOT NULL,
  edits text[] NOT NULL,
  -- the records sampled when the run started, in query order (record i is queried with every edit in turn)
  record_ids bigint[] NOT NULL DEFAULT '{}',
  -- one element per query answered: {"e": edit, "r": rank of the source picture (1-based, 0 = not in the top 10,
  -- -1 = the record was deleted meanwhile), "ms": query time}
  outcomes jsonb NOT NULL DEFAULT '[]',
  rerank_candidates integer NOT NULL DEFAULT 0,
  message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX search_evaluations_service ON search_evaluations (service_id, created_at DESC);
-- One evaluation at a time per service, enforced by the database.
CREATE UNIQUE INDEX search_evaluations_one_active ON search_evaluations (service_id) WHERE state IN ('queued', 'running');
CREATE INDEX search_evaluations_active ON search_evaluations (account_id) WHERE state IN ('queued', 'running');
