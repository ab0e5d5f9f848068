// Read your writes with a replica (DATABASE_READ_URL): after a successful write request, the caller's
// position in the primary's WAL is remembered (store/replica.ts) before the answer leaves, and routes
// that read through readOnReplica() send that caller to the primary until the replica has replayed it.
import { Elysia } from "elysia";
import type { AuthContext } from "../auth-context";
import { config } from "../../config";
import { onReplica, rememberWrite } from "../../store/replica";
import { authOf } from "./auth";

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Who a read or a write belongs to: the API key, or the dashboard user. */
export const callerOf = (auth: AuthContext): string => auth.keyId ?? `user:${auth.actorId}`;

/** Runs a list, detail or analytics read on the replica when it may (store/replica.ts readTarget). */
export function readOnReplica<T>(auth: AuthContext, fn: () => Promise<T>): Promise<T> {
  return onReplica(callerOf(auth), fn);
}

export const readRoutingPlugin = new Elysia({ name: "plugins.read-routing" }).onAfterHandle({ as: "global" }, async ({ request, set, response }) => {
  if (!config.databaseReadUrl || READ_METHODS.has(request.method)) return;
  const auth = authOf(request);
  if (!auth) return;
  const status = response instanceof Response ? response.status : typeof set.status === "number" ? set.status : 200;
  if (status >= 200 && status < 300) await rememberWrite(callerOf(auth));
});
