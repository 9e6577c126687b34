-- Image embedders a region has indexed with: the built-in pipeline, or an operator's ONNX model named by a
-- manifest (IRIS_MODEL_OVERRIDES stage `image-embedder`). The id is what pipelines start with; the model
-- file's SHA-256 and the manifest say exactly what made the vectors, so queries of an index still being
-- served while its successor is built run the same model.
CREATE TABLE search_embedders (
  id text PRIMARY KEY,
  manifest_path text NOT NULL,
  manifest jsonb NOT NULL,
  model_sha256 text NOT NULL,
  dim integer NOT NULL CHECK (dim > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A service whose embedder changed keeps serving `pipeline` while its items are embedded again under
-- `next_pipeline`; `n_rebuilt` live items have an embedding under it so far (the service view's
-- indexed_ratio). The switch sets pipeline = next_pipeline in one statement.
ALTER TABLE search_services
  ADD COLUMN next_pipeline text,
  ADD COLUMN n_rebuilt integer NOT NULL DEFAULT 0;
