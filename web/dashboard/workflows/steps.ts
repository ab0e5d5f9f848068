// A workflow step as the editor holds it (every field of every type, so switching the type keeps
// what was typed), the step the API is sent, and one line saying what a stored step does.
import type { ChannelName, WorkflowStep, WorkflowStepParams } from "../../../client";
import { CHANNEL_LABELS, isChannel, type StepType } from "../vocabulary";

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
}

let lastKey = 0;

export function newStep(type: StepType = "send"): StepDraft {
  return { key: ++lastKey, type, channel: "email", template: "", duration: "", channels: [] };
}

export function draftOf(step: WorkflowStep): StepDraft {
  const type = (["send", "delay", "fallback"] as const).find((t) => t === step.type) ?? "send";
  return {
    ...newStep(type),
    channel: isChannel(step.channel ?? null) ? (step.channel as ChannelName) : "email",
    template: step.template ?? "",
    duration: step.duration ?? "",
    channels: (step.channels ?? []).filter((c): c is ChannelName => isChannel(c)),
  };
}

/** Only the fields of the step's type: the API refuses the others by name. */
export function paramsOf(d: StepDraft): WorkflowStepParams {
  switch (d.type) {
    case "send":
      return { type: "send", channel: d.channel, template: d.template.trim() };
    case "delay":
      return { type: "delay", duration: d.duration.trim() };
    case "fallback":
      return { type: "fallback", channels: d.channels, template: d.template.trim(), condition: "not_delivered" };
  }
}

const channelName = (c: string | null | undefined) => (c && isChannel(c) ? CHANNEL_LABELS[c] : (c ?? "?"));

/** "Send by Email with welcome", "Wait 30m", "If not delivered, try SMS, then WhatsApp with welcome-sms". */
export function stepSummary(step: WorkflowStep): string {
  switch (step.type) {
    case "send":
      return `Send by ${channelName(step.channel)} with ${step.template}`;
    case "delay":
      return `Wait ${step.duration}`;
    case "fallback":
      return `If not delivered, try ${(step.channels ?? []).map(channelName).join(", then ")} with ${step.template}`;
    default:
      return step.type;
  }
}
