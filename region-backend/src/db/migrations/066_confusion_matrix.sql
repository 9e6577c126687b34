-- The confusion matrix of a trained custom service on its held-out validation images, written with the model
-- in the transaction that makes the service running: {"labels": [...], "counts": [[...], ...]}, a row per true
-- label and a column per predicted label, both in the order of `labels`. NULL until trained (and when no image
-- could be held out).
ALTER TABLE custom_services ADD COLUMN confusion_matrix jsonb;
