-- Usage per account, UTC day and service. Processes count in memory and add their counts here in one
-- statement every few seconds (IRIS_USAGE_FLUSH_SECONDS), so a call costs no write of its own.
CREATE TABLE usage_daily (
  account_id bigint NOT NULL,
  day date NOT NULL,
  service text NOT NULL,
  calls bigint NOT NULL DEFAULT 0,
  pictures_analysed bigint NOT NULL DEFAULT 0,
  pictures_stored bigint NOT NULL DEFAULT 0,
  bytes_stored bigint NOT NULL DEFAULT 0,
  inference_ms bigint NOT NULL DEFAULT 0,
  batch_lines bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, day, service)
);
