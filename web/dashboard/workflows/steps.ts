// A workflow step as the editor holds it (every field of every type, so switching the type keeps
// what was typed), the step the API is sent, and one line saying what a stored step does.
import type { ChannelName, WorkflowStep, WorkflowStepParams } from "../../../client";
import { CHANNEL_LABELS, isChannel, STEP_PRIORITIES, STEP_TYPES, type DelayMode, type StepPriority, type StepType } from "../vocabulary";

/** SPEC Limits: steps per workflow. */
export const MAX_STEPS = 10;

export interface StepDraft {
  /** Identity across moves (list key); not sent. */
  key: number;
  type: StepType;
  channel: ChannelName;
  template: string;
  duration: string;
  channels: ChannelName[];
  /** delay: wait a duration or until a local time */
  delayMode: DelayMode;
  until: string;
  /** digest and throttle */
  window: string;
  digestKey: string;
  maxEvents: string;
  limit: string;
  /** the `if` rule as JSON text ("" = none) */
  condition: string;
  /** send and fallback: preference category ("" = none), lane (undefined = the API's default, normal), critical */
  category: string;
  priority: StepPriority | undefined;
  critical: boolean;
}

let lastKey = 0;

export function newStep(type: StepType = "send"): StepDraft {
  return { key: ++lastKey, type, channel: "email", template: "", duration: "", channels: [], delayMode: "duration", until: "", window: "", digestKey: "", maxEvents: "", limit: "", condition: "", category: "", priority: undefined, critical: false };
}

export function draftOf(step: WorkflowStep): StepDraft {
  const type = STEP_TYPES.find((t) => t === step.type) ?? "send";
  return {
    ...newStep(type),
    channel: isChannel(step.channel ?? null) ? (step.channel as ChannelName) : "email",
    template: step.template ?? "",
    duration: step.duration ?? "",
    channels: (step.channels ?? []).filter((c): c is ChannelName => isChannel(c)),
    delayMode: step.until ? "until" : "duration",
    until: step.until ?? "",
    window: step.window ?? "",
    digestKey: step.key ?? "",
    maxEvents: step.max_events === undefined ? "" : String(step.max_events),
    limit: step.limit === undefined ? "" : String(step.limit),
    condition: step.if ? JSON.stringify(step.if) : "",
    category: step.category ?? "",
    priority: STEP_PRIORITIES.find((p) => p === step.priority),
    critical: step.critical === true,
  };
}

/** A number field as typed: a number when it reads as one, else the text (the API names what is wrong). */
const numberOf = (v: string): number => (/^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : (v as unknown as number));

/** The condition as typed: parsed JSON, or the text itself when it is not JSON (the API answers steps[i].if). */
function conditionOf(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return text as unknown as Record<string, unknown>;
  }
}

/** Only the fields of the step's type: the API refuses the others by name. */
export function paramsOf(d: StepDraft): WorkflowStepParams {
  const cond = conditionOf(d.condition);
  const withIf = <T extends WorkflowStepParams>(p: T): T => (cond === undefined ? p : { ...p, if: cond });
  // a send's and a fallback's delivery fields, only when set (a stored step keeps what the API gave it)
  const withDelivery = <T extends WorkflowStepParams>(p: T): T => ({
    ...p,
    ...(d.category.trim() ? { category: d.category.trim() } : {}),
    ...(d.priority ? { priority: d.priority } : {}),
    ...(d.critical ? { critical: true } : {}),
  });
  switch (d.type) {
    case "send":
      return withIf(withDelivery({ type: "send", channel: d.channel, template: d.template.trim() }));
    case "delay":
      return withIf(d.delayMode === "until" ? { type: "delay", until: d.until.trim() } : { type: "delay", duration: d.duration.trim() });
    case "fallback":
      return withIf(withDelivery({ type: "fallback", channels: d.channels, template: d.template.trim(), condition: "not_delivered" }));
    case "digest": {
      const p: WorkflowStepParams = { type: "digest", window: d.window.trim() };
      if (d.digestKey.trim()) p.key = d.digestKey.trim();
      if (d.maxEvents.trim()) p.max_events = numberOf(d.maxEvents);
      return withIf(p);
    }
    case "throttle": {
      const p: WorkflowStepParams = { type: "throttle", limit: numberOf(d.limit), window: d.window.trim() };
      if (d.digestKey.trim()) p.key = d.digestKey.trim();
      return withIf(p);
    }
  }
}

const channelName = (c: string | null | undefined) => (c && isChannel(c) ? CHANNEL_LABELS[c] : (c ?? "?"));

function summaryOf(step: WorkflowStep): string {
  switch (step.type) {
    case "send":
      return `Send by ${channelName(step.channel)} with ${step.template}`;
    case "delay":
      return step.until ? `Wait until ${step.until} local time` : `Wait ${step.duration}`;
    case "fallback":
      return `If not delivered, try ${(step.channels ?? []).map(channelName).join(", then ")} with ${step.template}`;
    case "digest":
      return `Digest for ${step.window}${step.key ? ` by ${step.key}` : ""}${step.max_events ? `, at most ${step.max_events} events` : ""}`;
    case "throttle":
      return `Throttle: at most ${step.limit} per ${step.window}${step.key ? ` by ${step.key}` : ""}`;
    default:
      return step.type;
  }
}

/** ", high priority, critical, category billing" for a send or fallback that sets them. */
function deliverySummary(step: WorkflowStep): string {
  const parts = [step.priority && step.priority !== "normal" ? `${step.priority} priority` : "", step.critical ? "critical" : "", step.category ? `category ${step.category}` : ""];
  return parts.filter(Boolean).map((p) => `, ${p}`).join("");
}

/** "Send by Email with welcome", "Wait 30m", "If not delivered, try SMS, then WhatsApp with welcome-sms"; "(if …)" when conditional. */
export function stepSummary(step: WorkflowStep): string {
  const s = summaryOf(step) + deliverySummary(step);
  return step.if ? `${s} (if ${JSON.stringify(step.if)})` : s;
}
