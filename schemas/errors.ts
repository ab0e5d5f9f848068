// TypeBox schema of the standard error body every failure answers with (DESIGN.md 4):
// {"error": {"code", "message", "details"?}}; the client library types its NmsError from it.
import { t } from "elysia";

export const ErrorDetails = t.Record(t.String(), t.Array(t.String()), {
  description: "Field path (e.g. subscribers[3].email) -> messages; on validation failures",
});

export const ErrorBody = t.Object({
  error: t.Object(
    {
      code: t.String({ description: "Stable machine-readable code, e.g. validation_failed" }),
      message: t.String(),
      details: t.Optional(ErrorDetails),
      index: t.Optional(t.Integer({ description: "Bulk import: index of the failing entry" })),
    },
    { additionalProperties: true },
  ),
});
