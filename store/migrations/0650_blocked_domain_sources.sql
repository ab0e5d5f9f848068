-- Blocked domains name their origin as the admin API shows it (issue 14 item 11): `seed` (the
-- disposable-email-domains package) or `manual` (an admin). The admin list pages by cursor with
-- manual entries first, newest first, then the seeds alphabetically; `search` is a substring.
alter table blocked_domains drop constraint blocked_domains_source_check;
update blocked_domains set source = case source when 'package' then 'seed' else 'manual' end;
alter table blocked_domains
  alter column source set default 'manual',
  add constraint blocked_domains_source_check check (source in ('seed', 'manual'));
create index blocked_domains_listing on blocked_domains ((source = 'seed'), created_at desc, domain);
create index blocked_domains_search on blocked_domains using gin (domain gin_trgm_ops);
