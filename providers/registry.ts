// The one registry of delivery providers: name -> definition (channels, fields, validate, create).
// The channels API validates through it and the channel sender builds providers through it.
import { mailgunDefinition } from "./email/mailgun";
import { postmarkDefinition } from "./email/postmark";
import { resendDefinition } from "./email/resend";
import { sendgridDefinition } from "./email/sendgrid";
import { sesDefinition } from "./email/ses";
import { smtpDefinition } from "./email/smtp";
import { inboxDefinition } from "./in-app/inbox";
import { apnsDefinition } from "./push/apns";
import { fcmDefinition } from "./push/fcm";
import { webpushDefinition } from "./push/webpush";
import { sandboxDefinition } from "./sandbox";
import { snsDefinition } from "./sms/sns";
import { twilioDefinition } from "./sms/twilio";
import { vonageDefinition } from "./sms/vonage";
import { redactSecrets, secretValues } from "./outcome";
import { recordProviderCall } from "../basics/metrics";
import type { Channel } from "../schemas/channels";
import type { OutboundMessage, Provider, ProviderConfig, ProviderDefinition, ProviderDeps, SendResult, VerifyResult } from "./types";
import { whatsappCloudDefinition } from "./whatsapp/whatsapp-cloud";

const definitions: ReadonlyMap<string, ProviderDefinition> = new Map(
  [
    smtpDefinition,
    sendgridDefinition,
    sesDefinition,
    mailgunDefinition,
    postmarkDefinition,
    resendDefinition,
    twilioDefinition,
    vonageDefinition,
    snsDefinition,
    whatsappCloudDefinition,
    fcmDefinition,
    webpushDefinition,
    apnsDefinition,
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

/**
 * Builds a provider from a channel's decrypted config. Throws UnknownProviderError for a name the
 * registry does not hold. Every result it returns has the config's credential values redacted,
 * because SendResult.response and error.message are stored and shown in attempt records.
 */
export function createProvider(name: string, config: ProviderConfig, deps: ProviderDeps = {}): Provider {
  const definition = definitions.get(name);
  if (!definition) throw new UnknownProviderError(name);
  const credentials = config.credentials ?? {};
  const provider = definition.create({ credentials, settings: config.settings ?? {} }, deps);
  const secrets = secretValues(credentials);
  if (secrets.length === 0) return measured(provider);
  return measured({
    name: provider.name,
    ...(provider.verify
      ? {
          async verify(signal?: AbortSignal): Promise<VerifyResult> {
            const result = await provider.verify!(signal);
            if (result.ok) return { ...result, message: redactSecrets(result.message, secrets), response: redactSecrets(result.response, secrets) };
            return {
              ok: false,
              error: { code: result.error.code, message: redactSecrets(result.error.message, secrets) },
              ...(result.response ? { response: redactSecrets(result.response, secrets) } : {}),
            };
          },
        }
      : {}),
    async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
      const result = await provider.send(msg, signal);
      // the message id is left alone: inbound status webhooks match on it verbatim
      if (result.ok) return { ...result, response: redactSecrets(result.response, secrets) };
      return {
        ...result,
        error: { code: result.error.code, message: redactSecrets(result.error.message, secrets) },
        ...(result.response ? { response: redactSecrets(result.response, secrets) } : {}),
      };
    },
  });
}

/** Every call's latency and outcome, by provider (nms_provider_call_*; docs/operations.md). */
function measured(provider: Provider): Provider {
  return {
    name: provider.name,
    ...(provider.verify ? { verify: (signal?: AbortSignal) => provider.verify!(signal) } : {}),
    async send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult> {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      let result: SendResult;
      try {
        result = await provider.send(msg, signal);
      } catch (err) {
        // adapters never throw by contract; the sender retries one that does
        recordProviderCall(provider.name, "retryable_failure", seconds());
        throw err;
      }
      recordProviderCall(provider.name, result.ok ? "ok" : result.retryable ? "retryable_failure" : "permanent_failure", seconds());
      return result;
    },
  };
}
