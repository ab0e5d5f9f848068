// Generated from schemas/errors.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type ErrorBody = {
  error: {
    /** Stable machine-readable code, e.g. validation_failed */
    code: string;
    message: string;
    /** Field path (e.g. subscribers[3].email) -> messages; on validation failures */
    details?: { [key: string]: string[] };
    /** Bulk import: index of the failing entry */
    index?: number;
  };
};

/** Field path (e.g. subscribers[3].email) -> messages; on validation failures */
export type ErrorDetails = { [key: string]: string[] };
