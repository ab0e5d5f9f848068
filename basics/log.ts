// The process logger (pino, JSON lines). Request-scoped children carry request_id.
// Credentials never reach it: redact the usual places as a second line of defence.
import pino from "pino";
import { config } from "../config";

export const logger = pino({
  level: config.logLevel,
  base: { service: "nms" },
  redact: {
    paths: ["credentials", "*.credentials", "authorization", "*.authorization", "headers.authorization", "raw_key", "*.raw_key"],
    censor: "[redacted]",
  },
});
