// The one registry of delivery providers: name -> definition (channels, fields, validate, create).
// The channels API validates through it and the channel sender builds providers through it.
import { sendgridDefinition } from "./email/sendgrid";
import { smtpDefinition } from "./email/smtp";
import { inboxDefinition } from "./in-app/inbox";
import { fcmDefinition } from "./push/fcm";
import { webpushDefinition } from "./push/webpush";
import { sandboxDefinition } from "./sandbox";
import { twilioDefinition } from "./sms/twilio";
import type { Channel, Provider, ProviderConfig, ProviderDefinition, ProviderDeps } from "./types";
import { whatsappCloudDefinition } from "./whatsapp/whatsapp-cloud";

const definitions: ReadonlyMap<string, ProviderDefinition> = new Map(
  [
    smtpDefinition,
    sendgridDefinition,
    twilioDefinition,
    whatsappCloudDefinition,
    fcmDefinition,
    webpushDefinition,
    inboxDefinition,
    sandboxDefinition,
  ].map((d) => [d.name, d]),
);

export const PROVIDER_NAMES: readonly string[] = [...definitions.keys()];

export function getProviderDefinition(name: string): ProviderDefinition | undefined {
  return definitions.get(name);
}

/** every provider that can deliver on a channel, sandbox last */
export function providersForChannel(channel: Channel): ProviderDefinition[] {
  return [...definitions.values()].filter((d) => d.channels.includes(channel));
}

export class UnknownProviderError extends Error {
  readonly code = "unknown_provider";
  constructor(readonly providerName: string) {
    super(`unknown provider '${providerName}'`);
  }
}

/** throws UnknownProviderError for a name the registry does not hold */
export function createProvider(name: string, config: ProviderConfig, deps: ProviderDeps = {}): Provider {
  const definition = definitions.get(name);
  if (!definition) throw new UnknownProviderError(name);
  return definition.create({ credentials: config.credentials ?? {}, settings: config.settings ?? {} }, deps);
}
