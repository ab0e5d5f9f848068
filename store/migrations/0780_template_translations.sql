-- Translations of a template (issue 28, docs/localization.md): one row per (template, locale), the
-- locale in its stored spelling (pt_BR, pt, en_US); and the locale a notification was rendered in.
create table if not exists template_translations (
  template_id uuid not null references templates(id) on delete cascade,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  locale text not null,
  content text not null,
  variants jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (template_id, locale)
);

-- nullable without a default: a catalogue-only change, no table rewrite
alter table notifications add column if not exists locale text;
