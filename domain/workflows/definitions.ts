// Workflow definitions (SPEC "Workflow", "Workflow version", Limits): validation of slug, name and
// steps with every failure keyed like `steps[2].duration`, create, new version on update, soft delete.
import { fieldErrors, AppError, conflict, notFound, validationFailed, type ErrorDetails } from "../../basics/errors";
import { CHANNELS } from "../../schemas/channels";
import { validateTemplate } from "../templates/render";
import { conditionProblem } from "./conditions";
import { WORKFLOW_LIMITS } from "../../schemas/workflows";
import type { Scope } from "../../store/db";
import {
  insertWorkflow,
  replaceActiveVersion,
  WorkflowSlugTakenError,
  type WorkflowFields,
  type WorkflowRow,
  type WorkflowStepDef,
} from "../../store/workflows";

const SLUG_RE = /^[a-z0-9_-]+$/;
const DURATION_RE = /^(\d+)([mhd])$/;
const UNIT_SECONDS = { m: 60, h: 3600, d: 86400 } as const;
const TEMPLATE_MAX = 255;
const CATEGORY_MAX = 100;

/** Seconds of a `<N>m|<N>h|<N>d` duration (N a positive integer), or null when malformed. */
export function durationSeconds(duration: string): number | null {
  const m = DURATION_RE.exec(duration);
  if (!m) return null;
  const n = Number(m[1]);
  if (!Number.isSafeInteger(n) || n < 1) return null;
  return n * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
}

const STEP_FIELDS: Record<WorkflowStepDef["type"], readonly string[]> = {
  send: ["type", "channel", "template", "category", "priority", "critical", "if"],
  delay: ["type", "duration", "until", "if"],
  fallback: ["type", "channels", "template", "condition", "category", "priority", "critical", "if"],
  digest: ["type", "window", "key", "max_events", "if"],
  throttle: ["type", "limit", "window", "key", "if"],
};

const UNTIL_RE = /^([01]\d|2[0-3]):[0-5]\d$/;
const KEY_MAX = 255;
/** A digest window is at most 24 hours. */
const MAX_DIGEST_WINDOW_SECONDS = 24 * 3600;

function checkWindow(details: ErrorDetails, field: string, v: unknown, maxSeconds: number, maxText: string) {
  if (v === undefined || v === null) return add(details, field, "is required");
  if (!isString(v)) return add(details, field, "must be a string");
  const seconds = durationSeconds(v);
  if (seconds === null) add(details, field, "must be <N>m, <N>h or <N>d with N a positive integer, e.g. 30m, 2h, 1d");
  else if (seconds > maxSeconds) add(details, field, `must be at most ${maxText}`);
}

function checkInt(details: ErrorDetails, field: string, v: unknown, min: number, max: number, required: boolean) {
  if (v === undefined || v === null) {
    if (required) add(details, field, "is required");
    return;
  }
  if (typeof v !== "number" || !Number.isInteger(v)) return add(details, field, "must be an integer");
  if (v < min || v > max) add(details, field, `must be between ${min} and ${max}`);
}

/** A digest or throttle key: a Liquid expression over the trigger data, e.g. {{ data.thread_id }}. */
function checkKey(details: ErrorDetails, field: string, v: unknown) {
  if (v === undefined || v === null) return;
  checkText(details, field, v, KEY_MAX, false);
  if (isString(v) && v.trim() !== "") {
    const r = validateTemplate({ content: v, channel: "in_app" });
    if (!r.valid) add(details, field, `must be a valid Liquid expression: ${r.errors.join("; ")}`);
  }
}

function add(details: ErrorDetails, field: string, message: string) {
  (details[field] ??= []).push(message);
}

const isString = (v: unknown): v is string => typeof v === "string";

function checkText(details: ErrorDetails, field: string, v: unknown, max: number, required: boolean) {
  if (v === undefined || v === null) {
    if (required) add(details, field, "is required");
    return;
  }
  if (!isString(v)) return add(details, field, "must be a string");
  if (v.trim() === "") return add(details, field, "must not be blank");
  if (v.length > max) add(details, field, `must be at most ${max} characters`);
}

function checkSlug(details: ErrorDetails, v: unknown, required: boolean) {
  checkText(details, "slug", v, WORKFLOW_LIMITS.slugLength, required);
  if (isString(v) && v.trim() !== "" && !SLUG_RE.test(v)) add(details, "slug", "may contain only lowercase letters, digits, '-' and '_'");
}

function checkChannel(details: ErrorDetails, field: string, v: unknown) {
  if (v === undefined || v === null) return add(details, field, "is required");
  if (!isString(v) || !(CHANNELS as readonly string[]).includes(v)) add(details, field, `must be one of ${CHANNELS.join(", ")}`);
}

const PRIORITIES = ["high", "normal", "low"] as const;

/** A send or fallback step's lane (docs/routing.md): kept only when given. */
function withPriority(details: ErrorDetails, at: string, v: unknown, step: WorkflowStepDef): WorkflowStepDef {
  if (v === undefined || v === null) return step;
  if (!(PRIORITIES as readonly unknown[]).includes(v)) {
    add(details, `${at}.priority`, `must be one of ${PRIORITIES.join(", ")}`);
    return step;
  }
  return { ...step, priority: v as WorkflowStepDef["priority"] };
}

/** A send or fallback step's `critical` (docs/delivery-policy.md): a boolean, kept only when given. */
function withCritical(details: ErrorDetails, at: string, v: unknown, step: WorkflowStepDef): WorkflowStepDef {
  if (v === undefined || v === null) return step;
  if (typeof v !== "boolean") {
    add(details, `${at}.critical`, "must be a boolean");
    return step;
  }
  return { ...step, critical: v };
}

function checkStep(details: ErrorDetails, at: string, raw: unknown): WorkflowStepDef | null {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    add(details, at, "must be an object");
    return null;
  }
  const s = raw as Record<string, unknown>;
  if (s.type === undefined || s.type === null) {
    add(details, `${at}.type`, "is required");
    return null;
  }
  if (!isString(s.type) || !(s.type in STEP_FIELDS)) {
    add(details, `${at}.type`, "must be one of send, delay, fallback, digest, throttle");
    return null;
  }
  const type = s.type as WorkflowStepDef["type"];
  for (const k of Object.keys(s)) if (!STEP_FIELDS[type].includes(k)) add(details, `${at}.${k}`, `is not allowed in a ${type} step`);
  const step = checkStepFields(details, at, type, s);
  if (s.if !== undefined) {
    const problem = conditionProblem(s.if);
    if (problem) add(details, `${at}.if`, problem);
    step.if = s.if as Record<string, unknown>;
  }
  return step;
}

function checkStepFields(details: ErrorDetails, at: string, type: WorkflowStepDef["type"], s: Record<string, unknown>): WorkflowStepDef {
  switch (type) {
    case "send":
      checkChannel(details, `${at}.channel`, s.channel);
      checkText(details, `${at}.template`, s.template, TEMPLATE_MAX, true);
      checkText(details, `${at}.category`, s.category, CATEGORY_MAX, false);
      const send: WorkflowStepDef = { type, channel: s.channel as string, template: s.template as string };
      if (isString(s.category)) send.category = s.category;
      return withCritical(details, at, s.critical, withPriority(details, at, s.priority, send));
    case "delay": {
      if (s.until !== undefined) {
        if (s.duration !== undefined) add(details, `${at}.until`, "must not be given with duration (one of duration or until)");
        else if (!isString(s.until) || !UNTIL_RE.test(s.until)) add(details, `${at}.until`, "must be a local time HH:MM (00:00 to 23:59), e.g. 09:00");
        return { type, until: s.until as string };
      }
      if (s.duration === undefined || s.duration === null) add(details, `${at}.duration`, "is required (or until)");
      else if (!isString(s.duration)) add(details, `${at}.duration`, "must be a string");
      else {
        const seconds = durationSeconds(s.duration);
        if (seconds === null) add(details, `${at}.duration`, "must be <N>m, <N>h or <N>d with N a positive integer, e.g. 30m, 2h, 1d");
        else if (seconds > WORKFLOW_LIMITS.maxDelaySeconds) add(details, `${at}.duration`, "must be at most 7 days (10080m, 168h, 7d)");
      }
      return { type, duration: s.duration as string };
    }
    case "fallback": {
      const field = `${at}.channels`;
      if (s.channels === undefined || s.channels === null) add(details, field, "is required");
      else if (!Array.isArray(s.channels)) add(details, field, "must be an array of channels");
      else if (s.channels.length === 0) add(details, field, "must list at least one channel");
      else {
        s.channels.forEach((c, k) => checkChannel(details, `${field}[${k}]`, c));
        // each channel's notification is keyed wfrun:<run>:step:<i>:ch:<channel>: one per channel
        if (new Set(s.channels).size !== s.channels.length) add(details, field, "must not list a channel twice");
      }
      checkText(details, `${at}.template`, s.template, TEMPLATE_MAX, true);
      if (s.condition !== undefined && s.condition !== "not_delivered") add(details, `${at}.condition`, "must be not_delivered");
      const step: WorkflowStepDef = { type, channels: s.channels as string[], template: s.template as string };
      if (s.condition !== undefined) step.condition = s.condition as string;
      checkText(details, `${at}.category`, s.category, CATEGORY_MAX, false);
      if (isString(s.category)) step.category = s.category;
      return withCritical(details, at, s.critical, withPriority(details, at, s.priority, step));
    }
    case "digest": {
      checkWindow(details, `${at}.window`, s.window, MAX_DIGEST_WINDOW_SECONDS, "24 hours (1440m, 24h, 1d)");
      checkKey(details, `${at}.key`, s.key);
      checkInt(details, `${at}.max_events`, s.max_events, 2, 1000, false);
      const step: WorkflowStepDef = { type, window: s.window as string };
      if (s.key !== undefined && s.key !== null) step.key = s.key as string;
      if (s.max_events !== undefined && s.max_events !== null) step.max_events = s.max_events as number;
      return step;
    }
    case "throttle": {
      checkInt(details, `${at}.limit`, s.limit, 1, 1000, true);
      checkWindow(details, `${at}.window`, s.window, WORKFLOW_LIMITS.maxDelaySeconds, "7 days (10080m, 168h, 7d)");
      checkKey(details, `${at}.key`, s.key);
      const step: WorkflowStepDef = { type, limit: s.limit as number, window: s.window as string };
      if (s.key !== undefined && s.key !== null) step.key = s.key as string;
      return step;
    }
  }
}

/**
 * Checks a create (slug required) or update (slug optional) body. Every failure is reported at once;
 * throws 422 validation_failed. Returns the definition as stored (known fields only).
 */
function validateDefinition(body: Record<string, unknown>, opts: { slugRequired: boolean }): { slug?: string; name: string; steps: WorkflowStepDef[] } {
  const details = fieldErrors();
  for (const k of Object.keys(body)) if (!["slug", "name", "steps"].includes(k)) add(details, k, "is not allowed");
  checkSlug(details, body.slug, opts.slugRequired);
  checkText(details, "name", body.name, WORKFLOW_LIMITS.nameLength, true);
  const steps: WorkflowStepDef[] = [];
  if (body.steps === undefined || body.steps === null) add(details, "steps", "is required");
  else if (!Array.isArray(body.steps)) add(details, "steps", "must be an array");
  else if (body.steps.length < 1) add(details, "steps", "must have at least 1 step");
  else if (body.steps.length > WORKFLOW_LIMITS.steps) add(details, "steps", `must have at most ${WORKFLOW_LIMITS.steps} steps`);
  else {
    let digestAt: number | null = null;
    body.steps.forEach((s, i) => {
      const step = checkStep(details, `steps[${i}]`, s);
      if (!step) return;
      steps.push(step);
      // a run leads or joins at most one digest (its membership is keyed by run)
      if (step.type === "digest") {
        if (digestAt === null) digestAt = i;
        else add(details, `steps[${i}].type`, `only one digest step per workflow (steps[${digestAt}] is one)`);
      }
    });
  }
  if (Object.keys(details).length) throw validationFailed(details);
  const out: { slug?: string; name: string; steps: WorkflowStepDef[] } = { name: body.name as string, steps };
  if (body.slug !== undefined) out.slug = body.slug as string;
  return out;
}

const slugTaken = () => new AppError("conflict", "Another active workflow already uses this slug", { slug: ["is already taken"] });
export const workflowNotFound = () => notFound("workflow_not_found", "Workflow not found");
const notActive = () =>
  conflict("conflict", "This version is not the active version of its workflow (it was updated or deleted); use the active version's id");

export async function createWorkflow(scope: Scope, body: Record<string, unknown>): Promise<WorkflowRow> {
  const def = validateDefinition(body, { slugRequired: true });
  try {
    return await insertWorkflow(scope, def as WorkflowFields);
  } catch (err) {
    if (err instanceof WorkflowSlugTakenError) throw slugTaken();
    throw err;
  }
}

/** PUT: a new version (new id, version + 1, active) replacing the active version `id`; the slug may change. */
export async function updateWorkflow(scope: Scope, id: string, body: Record<string, unknown>): Promise<WorkflowRow> {
  const def = validateDefinition(body, { slugRequired: false });
  try {
    const r = await replaceActiveVersion(scope, id, def);
    if (!r.ok) throw r.reason === "not_found" ? workflowNotFound() : notActive();
    return r.row;
  } catch (err) {
    if (err instanceof WorkflowSlugTakenError) throw slugTaken();
    throw err;
  }
}

/** DELETE: soft delete; the active version becomes inactive, runs in progress continue on their version. */
export async function deleteWorkflow(scope: Scope, id: string): Promise<void> {
  const r = await replaceActiveVersion(scope, id, null);
  if (!r.ok) throw r.reason === "not_found" ? workflowNotFound() : notActive();
}
