// Subprocess for the routing tests: a second "sender process" recording CW_FAILURES provider failures on
// one circuit through the same domain code the channel sender uses (domain/routing/), then exiting.
import { noteCall } from "../../domain/routing/circuit-breaker";
import { sql } from "../../store/db";
import { redis } from "../../store/redis";

const env = process.env;
const ref = {
  tenantId: env.CW_TENANT!,
  environment: env.CW_ENVIRONMENT ?? "production",
  channel: env.CW_CHANNEL!,
  entryId: env.CW_ENTRY!,
  provider: env.CW_PROVIDER!,
  role: "primary" as const,
};
for (let i = 0; i < Number(env.CW_FAILURES ?? 1); i++) {
  await noteCall(ref, { ok: false, retryable: true, error: { code: "http_500", message: `failure ${i + 1} from process ${process.pid}` } });
}
console.log(`done ${process.pid}`);
await redis.quit();
await sql.end({ timeout: 5 });
process.exit(0);
