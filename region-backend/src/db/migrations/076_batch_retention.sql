-- Batch tasks keep bounded disk and rows: the bytes of each task's files (input and results) count against the
-- account's batch storage limit, prepared tasks never applied expire, and finished tasks are deleted (files,
-- lines, row) after the retention period (domains/batch/batch-sweep.ts).
ALTER TABLE batch_tasks ADD COLUMN input_bytes bigint NOT NULL DEFAULT 0;
ALTER TABLE batch_tasks ADD COLUMN result_bytes bigint NOT NULL DEFAULT 0;
CREATE INDEX batch_tasks_received ON batch_tasks (received_at) WHERE state = 'RECEIVED';
CREATE INDEX batch_tasks_finished ON batch_tasks (finished_at) WHERE state IN ('SUCCESS', 'FAILURE', 'REVOKED');
