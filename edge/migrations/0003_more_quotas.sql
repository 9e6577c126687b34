-- Quotas on everything that costs a region memory or disk (README "Quotas"); NULL keeps the default.
ALTER TABLE account_quotas ADD COLUMN product_sets INTEGER;
ALTER TABLE account_quotas ADD COLUMN search_services INTEGER;
ALTER TABLE account_quotas ADD COLUMN search_services_per_set INTEGER;
ALTER TABLE account_quotas ADD COLUMN records_per_set INTEGER;
ALTER TABLE account_quotas ADD COLUMN records INTEGER;
ALTER TABLE account_quotas ADD COLUMN stored_bytes INTEGER;
ALTER TABLE account_quotas ADD COLUMN daily_bad_cases INTEGER;
