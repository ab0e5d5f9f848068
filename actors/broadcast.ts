// The broadcast actor (issue 22): keyed by broadcast id, so one broadcast's pages run one at a time;
// each message fans out pages through domain/broadcasts/broadcasts.ts from the cursor saved in PostgreSQL.
import { defineActor } from "../runtime";
import { fanOut } from "../domain/broadcasts/broadcasts";
import { broadcastAddress, type BroadcastMessage } from "../domain/broadcasts/broadcast-mail";

export const broadcast = defineActor<BroadcastMessage>({
  ...broadcastAddress,
  handle: (msg) => fanOut(msg),
  // a slice is about a second of pages; a page waiting on locks must not be called lost too soon
  deadlineMs: 60_000,
});
