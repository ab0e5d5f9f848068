// notification.* events of the accept and send paths are stored only where the tenant and environment have a
// webhook (domain/events/outbox.ts onlyIfListened), also when one batch holds tenants with and without one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { prepareEvents } from "../../domain/events/outbox";
import { sql } from "../../store/db";
import { createTenant, listenToEvents } from "../support/fixtures";
import { deleteTenants } from "../support/tenant-cleanup";

let listening: string;
let silent: string;

beforeAll(async () => {
  listening = (await createTenant()).tenant.id;
  silent = (await createTenant()).tenant.id;
  await listenToEvents(listening);
});

afterAll(async () => {
  await sql`delete from events where tenant_id = any(${[listening, silent]}::uuid[])`;
  await deleteTenants([listening, silent]);
});

const event = (tenantId: string, environment: string, n: number) => ({ tenantId, environment, type: "notification.created", data: { n } });
const stored = async (tenantId: string) =>
  (await sql<{ n: number }[]>`select (data->>'n')::int as n from events where tenant_id = ${tenantId} order by 1`).map((r) => r.n);

test("a batch of tenants without webhooks stores nothing; a mixed batch stores only the listened tenant's events", async () => {
  await prepareEvents(sql, [event(silent, "sandbox", 1), event(silent, "production", 2)], { onlyIfListened: true }).insert;
  expect(await stored(silent)).toEqual([]);
  await prepareEvents(sql, [event(silent, "sandbox", 3), event(listening, "sandbox", 4), event(listening, "production", 5)], { onlyIfListened: true }).insert;
  expect(await stored(silent)).toEqual([]);
  expect(await stored(listening)).toEqual([4, 5]);
  // without the option every event is stored
  await prepareEvents(sql, [event(silent, "sandbox", 6)]).insert;
  expect(await stored(silent)).toEqual([6]);
});
