// TypeBox schemas of the audience routes on workflows (issue 22): the bulk trigger and its runs,
// the trigger to a topic and the broadcast it answers, and the broadcast record.
import { t } from "elysia";
import { RunRecord } from "./workflows";

const Field = (type: string, description: string) => t.Optional(t.Unknown({ description: `${type}. ${description}` }));
const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);

export const BulkTriggerBody = t.Object(
  {
    events: Field(
      "array of object",
      "1-1,000 trigger events, each `{recipient|to, data|payload, locale}` as the single trigger takes them; validated all or nothing (details keyed `events[i].field`).",
    ),
  },
  { additionalProperties: t.Unknown(), examples: [{ events: [{ recipient: "user-1", data: { name: "Ana" } }, { to: "user-2", payload: { name: "Bo" } }] }] },
);

const RUN_EXAMPLE = {
  id: "0195f1c3-0a10-7c2d-8e4f-5a6b7c8d9e02",
  workflow_id: "0195f1c2-7b7e-7a41-9c3e-2f4b6d8e1a01",
  workflow_slug: "welcome",
  workflow_version: 1,
  recipient: "user-1",
  status: "running",
  current_step: 0,
  step_results: [],
  data: { name: "Ana" },
  started_at: "2026-11-26T10:00:00.000Z",
  completed_at: null,
};

export const BulkRunsResponse = t.Object({ data: t.Array(RunRecord) }, { examples: [{ data: [RUN_EXAMPLE] }] });

export const BroadcastStarted = t.Object({
  id: t.String({ description: "The broadcast id" }),
  topic: t.String(),
  workflow_slug: t.String(),
  status: t.String({ description: "fanning_out" }),
  recipients: t.Null({ description: "Known once the fan-out has started: GET /v1/broadcasts/:id" }),
});

export const BroadcastRecord = t.Object({
  id: t.String(),
  topic: t.String({ description: "The topic's key" }),
  workflow_slug: t.String(),
  workflow_version: t.Integer(),
  status: t.String({ description: "fanning_out, completed or cancelled" }),
  recipients: Nullable(t.Integer({ description: "Members at the trigger (null until the fan-out's first page)" })),
  runs_created: t.Integer(),
  created_at: t.String(),
  completed_at: Nullable(t.String()),
});

const BROADCAST_EXAMPLE = {
  id: "0195f1c4-1111-7000-8000-000000000001",
  topic: "plan:pro",
  workflow_slug: "welcome",
  workflow_version: 1,
  status: "completed",
  recipients: 5000,
  runs_created: 5000,
  created_at: "2026-11-26T10:00:00.000Z",
  completed_at: "2026-11-26T10:00:02.000Z",
};

export const BroadcastResponse = t.Object({ data: BroadcastRecord }, { examples: [{ data: BROADCAST_EXAMPLE }] });
export const BroadcastStartedResponse = t.Object(
  { data: BroadcastStarted },
  { examples: [{ data: { id: BROADCAST_EXAMPLE.id, topic: "plan:pro", workflow_slug: "welcome", status: "fanning_out", recipients: null } }] },
);
export const BroadcastIdParams = t.Object({ id: t.String({ description: "Broadcast id" }) });
