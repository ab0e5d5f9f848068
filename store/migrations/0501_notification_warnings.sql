-- Warnings recorded on a notification that was still sent (issue 12): e.g. `domain_unhealthy`
-- when the From domain's DKIM or SPF check was failing. A JSON array of {code, message}; null
-- when there is none (adding a nullable column rewrites nothing).
alter table notifications add column warnings jsonb;
