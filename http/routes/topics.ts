// /v1/topics (issue 22): create, cursor-paged list, get, delete, and the members of a topic (add,
// remove, cursor-paged list). Rules live in domain/topics/; plain reads go to store/topics.ts.
import { Elysia } from "elysia";
import { releaseBulkGarbage } from "../../basics/memory-ceiling";
import { changeMembers, createTopic, topicNotFound } from "../../domain/topics/topics";
import { decodeCursor, pageOf } from "../../store/cursor";
import { deleteTopic, findTopic, listMembers, listTopics } from "../../store/topics";
import {
  TopicCreateBody,
  TopicKeyParams,
  TopicListQuery,
  TopicListResponse,
  TopicMemberListResponse,
  TopicMembersAdded,
  TopicMembersBody,
  TopicMembersRemoved,
  TopicResponse,
} from "../../schemas/topics";
import { parseLimit } from "../pagination";
import { accessPlugin } from "../plugins/access";
import { scopeOf } from "../plugins/auth";
import { serializeSubscriber } from "../responses/subscribers";
import { serializeTopic } from "../responses/topics";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";

const TAG = { tags: ["topics"] };

export const topicRoutes = new Elysia({ name: "routes.topics" })
  .use(accessPlugin)
  .post(
    "/v1/topics",
    async ({ auth, body, set }) => {
      const row = await createTopic(scopeOf(auth), body as Record<string, unknown>);
      set.status = 201;
      return { data: serializeTopic(row) };
    },
    {
      access: "secret-write",
      body: TopicCreateBody,
      response: { 201: TopicResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409) },
      detail: { summary: "Create a topic (Idempotency-Key accepted)", description: "A topic is a named group of subscribers (e.g. a product's followers); a workflow can be triggered for all of its members at once. The key is unique in the environment.", ...TAG },
    },
  )
  .get(
    "/v1/topics",
    async ({ auth, query }) => {
      const limit = parseLimit(query.limit);
      const cursor = decodeCursor(query.cursor);
      const rows = await listTopics(scopeOf(auth), { limit, afterId: cursor?.id ?? null });
      const { page, meta } = pageOf(rows, limit, (r) => ({ t: r.created_at.toISOString(), id: r.id }));
      return { data: page.map(serializeTopic), meta };
    },
    {
      access: "secret-read",
      query: TopicListQuery,
      response: { 200: TopicListResponse, ...errors(KEY_ERRORS, 422) },
      detail: { summary: "List topics, newest first (cursor-paged)", description: "Each topic with its key and name.", ...TAG },
    },
  )
  .get(
    "/v1/topics/:key",
    async ({ auth, params }) => {
      const row = await findTopic(scopeOf(auth), params.key);
      if (!row) throw topicNotFound();
      return { data: serializeTopic(row) };
    },
    {
      access: "secret-read",
      params: TopicKeyParams,
      response: { 200: TopicResponse, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "A topic by key", description: "The path takes the topic's key.", ...TAG },
    },
  )
  .delete(
    "/v1/topics/:key",
    async ({ auth, params, set }) => {
      if (!(await deleteTopic(scopeOf(auth), params.key))) throw topicNotFound();
      set.status = 204;
    },
    {
      access: "secret-write",
      params: TopicKeyParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "Delete a topic and its memberships (subscribers stay; a broadcast fanning out to it completes with the runs made)", description: "The subscribers themselves are not touched.", ...TAG },
    },
  )
  .post(
    "/v1/topics/:key/subscribers",
    async ({ auth, params, body }) => {
      const r = await changeMembers(scopeOf(auth), params.key, body as Record<string, unknown>, "add");
      return { data: { added: r.changed, already: r.already, not_found: r.not_found } };
    },
    {
      access: "secret-write",
      params: TopicKeyParams,
      body: TopicMembersBody,
      afterResponse: releaseBulkGarbage,
      response: { 200: TopicMembersAdded, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: { summary: "Add 1-1,000 subscribers (external_id or id) to a topic", description: "The answer counts those added and those already members, and lists the references that name no subscriber.", ...TAG },
    },
  )
  .delete(
    "/v1/topics/:key/subscribers",
    async ({ auth, params, body }) => {
      const r = await changeMembers(scopeOf(auth), params.key, (body ?? {}) as Record<string, unknown>, "remove");
      return { data: { removed: r.changed, already: r.already, not_found: r.not_found } };
    },
    {
      access: "secret-write",
      params: TopicKeyParams,
      body: TopicMembersBody,
      afterResponse: releaseBulkGarbage,
      response: { 200: TopicMembersRemoved, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: { summary: "Remove 1-1,000 subscribers (external_id or id) from a topic", description: "The answer counts those removed and those that were not members, and lists the references that name no subscriber.", ...TAG },
    },
  )
  .get(
    "/v1/topics/:key/subscribers",
    async ({ auth, params, query }) => {
      const topic = await findTopic(scopeOf(auth), params.key);
      if (!topic) throw topicNotFound();
      const limit = parseLimit(query.limit);
      const cursor = decodeCursor(query.cursor);
      const rows = await listMembers(topic.id, { limit, afterId: cursor?.id ?? null });
      const { page, meta } = pageOf(rows, limit, (r) => ({ t: r.created_at.toISOString(), id: r.id }));
      return { data: page.map(serializeSubscriber), meta };
    },
    {
      access: "secret-read",
      params: TopicKeyParams,
      query: TopicListQuery,
      response: { 200: TopicMemberListResponse, ...errors(KEY_ERRORS, 404, 422) },
      detail: { summary: "The topic's members (cursor-paged)", description: "The subscribers a broadcast to this topic reaches.", ...TAG },
    },
  );
