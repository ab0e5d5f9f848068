// /api/internal/dead-letters (admin token): list every actor's dead letters newest first, show one,
// redrive it onto the partition of its key (fresh delivery count), drop it. For the dashboard and on-call.
import { Elysia } from "elysia";
import { deadLetterView, dropDeadLetter, listDeadLetters, redriveDeadLetter, showDeadLetter } from "../../domain/operations/dead-letters";
import { DeadLetterList, DeadLetterListQuery, DeadLetterParams, DeadLetterResponse, RedriveResponse } from "../../schemas/dead-letters";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import { requestFacts } from "../request-context";
import { errors, NoContent } from "../route-docs";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;
const TAG = { tags: ["admin"] };
const by = (request: Request) => `admin api (request ${requestFacts(request).id})`;

export const deadLetterRoutes = new Elysia({ name: "routes.dead-letters" })
  .use(accessPlugin)
  .get(
    "/api/internal/dead-letters",
    async ({ query, request }) => {
      const limit = parseLimit(query.limit, DEFAULT_LIMIT, MAX_LIMIT);
      const page = await listDeadLetters({ actor: query.actor, cursor: query.cursor, limit }, by(request));
      return { data: page.items.map((d) => deadLetterView(d)), meta: { limit, next_cursor: page.nextCursor, totals: page.totals } };
    },
    {
      access: "admin",
      query: DeadLetterListQuery,
      response: { 200: DeadLetterList, ...errors(401, 422) },
      detail: { ...TAG, summary: "List dead letters, newest first (?actor, cursor, limit)", description: "Messages an actor failed to handle 5 times, with their error; see docs/operations.md for what to do with them." },
    },
  )
  .get(
    "/api/internal/dead-letters/:actor/:id",
    async ({ params, request }) => ({ data: deadLetterView(await showDeadLetter(params.actor, params.id, by(request)), true) }),
    {
      access: "admin",
      params: DeadLetterParams,
      response: { 200: DeadLetterResponse, ...errors(401, 404, 422) },
      detail: { ...TAG, summary: "One dead letter with its error stack", description: "The message, the error it failed with and its stack, and when it died." },
    },
  )
  .post(
    "/api/internal/dead-letters/:actor/:id/redrive",
    async ({ params, request }) => {
      const r = await redriveDeadLetter(params.actor, params.id, by(request));
      return { data: { id: params.id, actor: params.actor, partition: r.partition, entry_id: r.entryId } };
    },
    {
      access: "admin",
      params: DeadLetterParams,
      response: { 200: RedriveResponse, ...errors(401, 404, 422) },
      detail: {
        ...TAG,
        summary: "Redrive: append the message to the partition of its key (fresh delivery count) and delete the dead letter",
        description: "Safe to repeat after a failure: an interrupted redrive is completed without a second copy.",
      },
    },
  )
  .delete(
    "/api/internal/dead-letters/:actor/:id",
    async ({ params, request, set }) => {
      await dropDeadLetter(params.actor, params.id, by(request));
      set.status = 204;
    },
    {
      access: "admin",
      params: DeadLetterParams,
      response: { 204: NoContent, ...errors(401, 404, 422) },
      detail: { ...TAG, summary: "Drop a dead letter (it is not delivered); 204", description: "The message is gone for good; use redrive instead to run it again." },
    },
  );
