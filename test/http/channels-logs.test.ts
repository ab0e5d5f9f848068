// "Credentials never in any log line": drives every channels route, including its failure paths,
// in a child process logging at trace level, and searches everything it printed for the secrets.
import { expect, test } from "bun:test";
import { join } from "node:path";

test("no credential value appears in any log line of the channels routes (LOG_LEVEL=trace)", async () => {
  const token = `log-secret-token-${crypto.randomUUID()}`;
  const rotated = `log-rotated-token-${crypto.randomUUID()}`;
  const badSid = `log-bad-sid-${crypto.randomUUID()}`;
  const root = join(import.meta.dir, "../..");
  const script = `
    const { createTenant, call } = await import(${JSON.stringify(join(root, "test/support/fixtures.ts"))});
    const { sql } = await import(${JSON.stringify(join(root, "store/db.ts"))});
    const { invalidateChannelConfig } = await import(${JSON.stringify(join(root, "store/channels.ts"))});
    const t = await createTenant();
    const key = t.secretKey;
    const sid = "AC" + "0123456789abcdef".repeat(2);
    const body = { channel: "sms", provider: "twilio", credentials: { account_sid: sid, auth_token: process.env.T1 }, settings: { from: "+14155550100" } };
    const statuses = [];
    statuses.push((await call("POST", "/v1/channels", { key, body })).status);
    statuses.push((await call("POST", "/v1/channels", { key, body })).status);
    statuses.push((await call("POST", "/v1/channels", { key, body: { ...body, channel: "email", credentials: { account_sid: process.env.BAD } } })).status);
    statuses.push((await call("POST", "/v1/channels", { key, body: { channel: "whatsapp", provider: "twilio", credentials: { account_sid: process.env.BAD, auth_token: process.env.T1 } } })).status);
    statuses.push((await call("PUT", "/v1/channels/sms", { key, body: { credentials: { account_sid: sid, auth_token: process.env.T2 } } })).status);
    statuses.push((await call("PUT", "/v1/channels/sms", { key, body: { credentials: { account_sid: process.env.BAD } } })).status);
    statuses.push((await call("GET", "/v1/channels", { key })).status);
    statuses.push((await call("POST", "/v1/channels/sms/test", { key, body: { to: "+5511999990000" } })).status);
    const [row] = await sql\`select credentials_enc from channels where tenant_id = \${t.tenant.id} and channel = 'sms'\`;
    const p = row.credentials_enc.split(":"); p[3] = Buffer.alloc(16).toString("base64");
    await sql\`update channels set credentials_enc = \${p.join(":")} where tenant_id = \${t.tenant.id} and channel = 'sms'\`;
    invalidateChannelConfig();
    statuses.push((await call("POST", "/v1/channels/sms/test", { key })).status);
    statuses.push((await call("DELETE", "/v1/channels/sms", { key })).status);
    console.log("STATUSES " + JSON.stringify(statuses));
    process.exit(0);
  `;
  const proc = Bun.spawn([process.execPath, "-e", script], {
    cwd: root,
    env: { ...process.env, NODE_ENV: "test", LOG_LEVEL: "trace", T1: token, T2: rotated, BAD: badSid },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) console.error(`the child process failed:\n${out}\n${err}`);
  expect(await proc.exited).toBe(0);
  const all = out + err;
  expect(all).toContain('STATUSES [201,409,422,422,200,422,200,200,200,204]');
  // logging was really on: request lines and the decrypt warning were written
  expect(all).toContain('"msg":"request"');
  expect(all).toContain("channel credentials failed to decrypt");
  for (const secret of [token, rotated, badSid]) expect(all.includes(secret)).toBe(false);
}, 60_000);
