// API response shape of a broadcast (issue 22): the record domain/broadcasts/ also puts in the
// broadcast.completed event, so both show one shape (schemas/broadcasts.ts BroadcastRecord).
export { serializeBroadcast } from "../../domain/broadcasts/broadcasts";
