// /v1/broadcasts (issue 22): a broadcast's progress and its cancel. A broadcast starts with a trigger
// to a topic (http/routes/workflows.ts); its fan-out runs on the broadcast actor.
import { Elysia } from "elysia";
import { broadcastNotFound, cancelBroadcast } from "../../domain/broadcasts/broadcasts";
import { BroadcastIdParams, BroadcastResponse } from "../../schemas/broadcasts";
import { getBroadcast } from "../../store/broadcasts";
import { isUuid } from "../../store/ids";
import { accessPlugin } from "../plugins/access";
import { scopeOf } from "../plugins/auth";
import { serializeBroadcast } from "../responses/broadcasts";
import { errors, KEY_ERRORS } from "../route-docs";

export const broadcastRoutes = new Elysia({ name: "routes.broadcasts" })
  .use(accessPlugin)
  .get(
    "/v1/broadcasts/:id",
    async ({ auth, params }) => {
      const row = isUuid(params.id) ? await getBroadcast(scopeOf(auth), params.id) : null;
      if (!row) throw broadcastNotFound();
      return { data: serializeBroadcast(row) };
    },
    {
      access: "secret-read",
      params: BroadcastIdParams,
      response: { 200: BroadcastResponse, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "A broadcast: its status (fanning_out, completed, cancelled), recipients and runs created so far", description: "A broadcast starts one workflow run per member of a topic; this follows its progress.", tags: ["workflows"] },
    },
  )
  .post(
    "/v1/broadcasts/:id/cancel",
    async ({ auth, params }) => {
      if (!isUuid(params.id)) throw broadcastNotFound();
      return { data: serializeBroadcast(await cancelBroadcast(scopeOf(auth), params.id)) };
    },
    {
      access: "secret-write",
      params: BroadcastIdParams,
      response: { 200: BroadcastResponse, ...errors(KEY_ERRORS, 404, 409) },
      detail: { summary: "Stop a fan-out: runs not yet created are not; those created go on (409 broadcast_not_cancellable once completed or cancelled)", description: "Cancel the runs already created one by one (POST /v1/workflow-runs/{id}/cancel) if they must stop too.", tags: ["workflows"] },
    },
  );
