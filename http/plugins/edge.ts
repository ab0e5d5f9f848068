// The request edge every app starts with (the service's and the tests' own small apps): request id
// and the one error mapper, the one body parser, the request log line.
import { Elysia } from "elysia";
import { bodyParserPlugin } from "./body-parser";
import { errorsPlugin } from "./errors";
import { requestLogPlugin } from "./request-log";

export const edgePlugins = new Elysia({ name: "plugins.edge" }).use(errorsPlugin).use(bodyParserPlugin).use(requestLogPlugin);
