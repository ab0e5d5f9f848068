-- When the sender claimed the current attempt (attempt_count). A pending row whose claimed attempt has
-- no attempt row and whose claim is older than the provider deadline lost its sender mid-attempt.
alter table notifications add column if not exists claimed_at timestamptz;
