// docs/providers/ stays true to providers/: every page documents each credential and setting
// of its provider with the right rate-limit default, and its POST /v1/channels example validates.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getProviderDefinition, PROVIDER_NAMES } from "../../providers/registry";

const dir = join(import.meta.dir, "..", "..", "docs", "providers");
const pages: Record<string, string> = {
  smtp: "smtp.md",
  sendgrid: "sendgrid.md",
  ses: "ses.md",
  mailgun: "mailgun.md",
  postmark: "postmark.md",
  resend: "resend.md",
  twilio: "twilio.md",
  vonage: "vonage.md",
  sns: "sns.md",
  whatsapp_cloud: "whatsapp-cloud.md",
  fcm: "fcm.md",
  webpush: "webpush.md",
  apns: "apns.md",
  inbox: "inbox.md",
  sandbox: "sandbox.md",
};
const read = (file: string) => readFileSync(join(dir, file), "utf8");

/** The JSON bodies of the page's `curl -X POST .../v1/channels` examples (the `-d '...'` argument). */
function channelExamples(markdown: string): { channel: string; provider: string; credentials?: Record<string, unknown>; settings?: Record<string, unknown> }[] {
  return [...markdown.matchAll(/-X POST http:\/\/localhost:3000\/v1\/channels \\\n[\s\S]*?-d '([^']*)'/g)].map((m) => JSON.parse(m[1]!));
}

test("every provider of the registry has a page, and the index links each", () => {
  expect(Object.keys(pages).sort()).toEqual([...PROVIDER_NAMES].sort());
  const index = read("README.md");
  for (const [name, file] of Object.entries(pages)) {
    expect(index).toContain(`| \`${name}\` |`);
    expect(index).toContain(`(${file})`);
  }
});

describe.each(Object.entries(pages))("docs/providers/%s", (name, file) => {
  const page = read(file);
  const def = getProviderDefinition(name)!;

  test("documents every credential and setting field in a table row", () => {
    for (const f of [...def.credentialFields, ...def.settingFields]) expect(page).toContain(`| \`${f.name}\` |`);
  });

  test("states the provider's default rate limit", () => {
    expect(page).toMatch(new RegExp(`\\| \`rate_limit_per_second\` \\| no \\| \`${def.defaultRateLimitPerSecond}\` \\|`));
  });

  test("its example's values have the JSON type each field's description gives (GET /v1/providers, the dashboard's forms)", () => {
    const jsonType = (v: unknown) => (Number.isInteger(v) ? "integer" : typeof v === "number" ? "number" : Array.isArray(v) ? "array" : typeof v);
    const fits = (type: string, v: unknown) => jsonType(v) === type || (type === "number" && jsonType(v) === "integer");
    for (const e of channelExamples(page).filter((e) => e.provider === name)) {
      for (const [scope, fields] of [["credentials", def.credentialFields], ["settings", def.settingFields]] as const) {
        for (const f of fields) {
          const v = e[scope]?.[f.name];
          if (v !== undefined) expect([f.name, f.type, fits(f.type, v)]).toEqual([f.name, f.type, true]);
        }
      }
    }
  });

  test("its POST /v1/channels example names this provider and passes the provider's validation", () => {
    const examples = channelExamples(page).filter((e) => e.provider === name);
    expect(examples.length).toBeGreaterThan(0);
    for (const e of examples) {
      expect(def.channels).toContain(e.channel as never);
      expect(def.validate(e.credentials ?? {}, e.settings ?? {})).toEqual({});
    }
  });
});

test("the index's own example validates too", () => {
  const examples = channelExamples(read("README.md"));
  expect(examples.length).toBe(1);
  for (const e of examples) expect(getProviderDefinition(e.provider)!.validate(e.credentials ?? {}, e.settings ?? {})).toEqual({});
});
