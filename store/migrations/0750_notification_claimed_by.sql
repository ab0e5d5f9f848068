-- Who claimed a notification's current attempt (the channel sender's runtime host id,
-- `<hostname>-<pid>-<random>@<pid namespace>`): a redelivered message whose claimer is a process of
-- the same machine that is gone records the attempt as lost at once instead of after STALE_CLAIM_MS.
-- Nullable, no default: adding it rewrites nothing; it is never indexed, so claims stay HOT-eligible.
alter table notifications add column if not exists claimed_by text;
