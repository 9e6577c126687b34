-- Training runs that never ended (their process was killed or hung while running): counted so a service
-- whose data keeps killing processes is failed with a reason after a few attempts instead of resumed for ever.
ALTER TABLE custom_services ADD COLUMN run_open boolean NOT NULL DEFAULT false;
ALTER TABLE custom_services ADD COLUMN run_kills integer NOT NULL DEFAULT 0;
