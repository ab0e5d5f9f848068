// /v1/channels: per-channel provider configuration (SPEC Endpoints "Channels", DESIGN.md 6 and 7).
// Credentials are validated by the provider registry, encrypted, and never echoed in any body.
import { Elysia, t } from "elysia";
import { DecryptionError } from "../../store/cipher";
import { secretValues } from "../../providers/outcome";
import { getProviderDefinition, PROVIDER_NAMES, providersForChannel } from "../../providers/registry";
import {
  CHANNELS,
  type Channel,
  ChannelCreateBody,
  ChannelListResponse,
  ChannelParams,
  ChannelResponse,
  ChannelTestBody,
  ChannelTestResponse,
  ChannelUpdateBody,
} from "../../schemas/channels";
import { writeAudit } from "../../store/audit";
import {
  ChannelExistsError,
  decryptCredentials,
  decryptFailover,
  type FailoverFields,
  deleteChannel,
  findChannel,
  insertChannel,
  invalidateChannelConfig,
  listChannels,
  updateChannel,
  type ChannelFields,
  type ChannelRow,
} from "../../store/channels";
import { serializeChannel, serializeProviderState } from "../responses/channels";
import { sendChannelTest, sendDirectTest, verifyChannel, type ChannelTestOutcome } from "../../domain/delivery/channel-test";
import { readCircuits } from "../../store/circuits";
import { builtInProvider } from "../../domain/delivery/target";
import { sql } from "../../store/db";
import { fieldErrors, conflict, notFound, validationFailed, type ErrorDetails } from "../../basics/errors";
import { logger } from "../../basics/log";
import { accessPlugin } from "../plugins/access";
import { scopeOf, type AuthContext } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS, NoContent } from "../route-docs";

function add(details: ErrorDetails, field: string, message: string) {
  (details[field] ??= []).push(message);
}

/** 422 for a channel name outside SPEC's list in a body; in a path it names nothing that exists: 404 */
function channelName(value: string, field = "channel"): Channel {
  if (!(CHANNELS as readonly string[]).includes(value)) {
    throw validationFailed({ [field]: [`must be one of ${CHANNELS.join(", ")}`] });
  }
  return value as Channel;
}

function channelInPath(value: string): Channel {
  if (!(CHANNELS as readonly string[]).includes(value)) {
    throw notFound("channel_not_found", `There is no channel named ${JSON.stringify(value.slice(0, 40))}; channels are ${CHANNELS.join(", ")}`);
  }
  return value as Channel;
}

/**
 * Provider checks (DESIGN.md 7 table) through the registry: the provider must serve the
 * channel, then its validate() names bad fields ("credentials.account_sid"). Messages that
 * would contain a submitted secret are replaced, whatever an adapter writes.
 */
function checkConfig(channel: Channel, f: ChannelFields): ErrorDetails {
  const details = fieldErrors();
  const def = getProviderDefinition(f.provider);
  if (!def) {
    add(details, "provider", `must be one of ${PROVIDER_NAMES.join(", ")}`);
    return details;
  }
  if (!def.channels.includes(channel)) {
    const fit = providersForChannel(channel).map((d) => d.name);
    add(details, "provider", `does not serve the ${channel} channel; use one of ${fit.join(", ")}`);
    return details;
  }
  let found: ErrorDetails;
  try {
    found = def.validate(f.credentials, f.settings);
  } catch {
    found = { credentials: ["are invalid"] };
  }
  // the registry's own list of what is secret in credentials (short values too: a message must not quote any)
  const secrets = secretValues(f.credentials, 3);
  for (const [field, messages] of Object.entries(found)) {
    for (const m of messages) add(details, field, secrets.some((s) => m.includes(s)) ? "is invalid" : m);
  }
  return details;
}

/** Each backup through the same checks, its fields named `failover[i].provider`, `failover[i].credentials.api_key` ... */
function checkFailover(channel: Channel, list: FailoverFields[]): ErrorDetails {
  const details: ErrorDetails = fieldErrors();
  list.forEach((f, i) => {
    const found = checkConfig(channel, { provider: f.provider, credentials: f.credentials, settings: f.settings, active: true });
    for (const [field, messages] of Object.entries(found)) for (const m of messages) add(details, `failover[${i}].${field}`, m);
  });
  return details;
}

/** The body's backups with plaintext credentials: on PUT an entry without credentials keeps the stored entry's at its position (same provider). */
function failoverOf(body: { provider: string; credentials?: Record<string, unknown>; settings?: Record<string, unknown> }[], current: FailoverFields[] = []): FailoverFields[] {
  return body.map((e, i) => {
    const cur = current[i];
    if (e.credentials === undefined && cur && cur.provider === e.provider) return { id: cur.id, provider: e.provider, credentials: cur.credentials, settings: e.settings ?? cur.settings };
    return { provider: e.provider, credentials: e.credentials ?? {}, settings: e.settings ?? {} };
  });
}

function auditOf(auth: AuthContext, action: string, row: ChannelRow) {
  return {
    tenantId: auth.tenantId,
    actorType: auth.actorType,
    actorId: auth.actorId,
    action,
    resourceType: "channel",
    resourceId: row.id,
    // names only: the audit log is readable by admins, credentials are not
    metadata: {
      environment: auth.environment,
      channel: row.channel,
      provider: row.provider,
      credential_keys: row.credential_keys,
      active: row.active,
      failover: (row.failover ?? []).map((e) => ({ provider: e.provider, credential_keys: e.credential_keys })),
    },
    ip: auth.ip,
    userAgent: auth.userAgent,
  };
}

const notConfigured = (channel: string) => notFound("channel_not_found", `The ${channel} channel is not configured`);

export const channelRoutes = new Elysia({ name: "routes.channels" })
  .use(accessPlugin)
  .post(
    "/v1/channels",
    async ({ auth, body, set }) => {
      const channel = channelName(body.channel);
      const fields: ChannelFields = {
        provider: body.provider,
        credentials: body.credentials ?? {},
        settings: body.settings ?? {},
        active: body.active ?? true,
        failover: failoverOf(body.failover ?? []),
      };
      const details = { ...checkConfig(channel, fields), ...checkFailover(channel, fields.failover!) };
      if (Object.keys(details).length) throw validationFailed(details);
      let row: ChannelRow;
      try {
        row = await sql.begin(async (tx) => {
          const row = await insertChannel(tx, scopeOf(auth), channel, fields);
          await writeAudit(tx, auditOf(auth, "channel.created", row));
          return row;
        });
      } catch (err) {
        if (err instanceof ChannelExistsError) {
          throw conflict("channel_already_configured", `The ${channel} channel is already configured; use PUT /v1/channels/${channel}`);
        }
        throw err;
      }
      invalidateChannelConfig(auth.tenantId, auth.environment, channel);
      set.status = 201;
      return { data: serializeChannel(row) };
    },
    {
      access: "secret-write",
      body: ChannelCreateBody,
      response: { 201: ChannelResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409) },
      detail: { summary: "Configure a channel's provider", description: "One configuration per channel and environment. Credentials are checked against the provider's fields (GET /v1/providers) and stored encrypted (AES-256-GCM). Sends on a channel without a configuration are refused with 422 channel_not_configured.", tags: ["channels"] },
    },
  )
  .get(
    "/v1/channels",
    async ({ auth }) => {
      return { data: (await listChannels(scopeOf(auth))).map(serializeChannel) };
    },
    { access: "secret-read", response: { 200: ChannelListResponse, ...errors(KEY_ERRORS) }, detail: { summary: "List channel configurations", description: "Every configured channel of the environment.", tags: ["channels"] } },
  )
  .get(
    "/v1/channels/:channel",
    async ({ auth, params }) => {
      const channel = channelInPath(params.channel);
      const row = await findChannel(sql, scopeOf(auth), channel);
      if (!row) throw notConfigured(channel);
      // each configured provider with its circuit (domain/routing/; Redis is the state every sender shares)
      const entries = [
        { id: row.id, provider: row.provider, role: "primary" as const },
        ...(row.failover ?? []).map((e) => ({ id: e.id, provider: e.provider, role: "failover" as const })),
      ];
      const circuits = await readCircuits(entries.map((e) => ({ tenantId: auth.tenantId, environment: auth.environment, channel, entryId: e.id, provider: e.provider })));
      return { data: { ...serializeChannel(row), providers: entries.map((e, i) => serializeProviderState(e, circuits[i]!)) } };
    },
    {
      access: "secret-read",
      params: ChannelParams,
      response: { 200: ChannelResponse, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "Get a channel's configuration", description: "The provider and settings of one channel.", tags: ["channels"] },
    },
  )
  .put(
    "/v1/channels/:channel",
    async ({ auth, params, body }) => {
      const channel = channelInPath(params.channel);
      if (body.channel !== undefined && body.channel !== channel) {
        throw validationFailed({ channel: ["must match the channel in the path"] });
      }
      const row = await sql.begin(async (tx) => {
        const cur = await findChannel(tx, scopeOf(auth), channel, true);
        if (!cur) throw notConfigured(channel);
        const provider = body.provider ?? cur.provider;
        let credentials: Record<string, unknown>;
        if (body.credentials !== undefined) credentials = body.credentials;
        else if (provider !== cur.provider) credentials = {}; // another provider's secrets are of no use
        else {
          try {
            credentials = decryptCredentials(cur);
          } catch (err) {
            if (!(err instanceof DecryptionError)) throw err;
            throw validationFailed({ credentials: ["stored credentials cannot be decrypted; send them again"] });
          }
        }
        let current: FailoverFields[];
        try {
          current = decryptFailover(cur);
        } catch (err) {
          if (!(err instanceof DecryptionError)) throw err;
          if (body.failover === undefined) throw validationFailed({ failover: ["stored backup credentials cannot be decrypted; send the list again"] });
          current = [];
        }
        const next: ChannelFields = {
          provider,
          credentials,
          settings: body.settings ?? cur.settings ?? {},
          active: body.active ?? cur.active,
          failover: body.failover === undefined ? current : failoverOf(body.failover, current),
        };
        const details = { ...checkConfig(channel, next), ...checkFailover(channel, next.failover!) };
        if (Object.keys(details).length) throw validationFailed(details);
        const row = await updateChannel(tx, scopeOf(auth), channel, next);
        await writeAudit(tx, auditOf(auth, "channel.updated", row));
        return row;
      });
      invalidateChannelConfig(auth.tenantId, auth.environment, channel);
      return { data: serializeChannel(row) };
    },
    {
      access: "secret-write",
      params: ChannelParams,
      body: ChannelUpdateBody,
      response: { 200: ChannelResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: {
        summary: "Update a channel's configuration (credentials and settings replaced when given, kept otherwise)", description: "The same checks as at creation apply to what is given.",
        tags: ["channels"],
      },
    },
  )
  .delete(
    "/v1/channels/:channel",
    async ({ auth, params, set }) => {
      const channel = channelInPath(params.channel);
      await sql.begin(async (tx) => {
        const cur = await findChannel(tx, scopeOf(auth), channel, true);
        if (!cur || !(await deleteChannel(tx, scopeOf(auth), channel))) throw notConfigured(channel);
        await writeAudit(tx, auditOf(auth, "channel.deleted", cur));
      });
      invalidateChannelConfig(auth.tenantId, auth.environment, channel);
      set.status = 204;
    },
    {
      access: "secret-write",
      params: ChannelParams,
      response: { 204: NoContent, ...errors(KEY_ERRORS, 404) },
      detail: { summary: "Remove a channel's configuration", description: "Sends on this channel are refused with 422 channel_not_configured from then on.", tags: ["channels"] },
    },
  )
  .post(
    "/v1/channels/:channel/test",
    async ({ auth, params, body }) => {
      const channel = channelInPath(params.channel);
      const row = await findChannel(sql, scopeOf(auth), channel);
      const settingRecipient = row?.settings?.test_recipient;
      const to = body?.to ?? (typeof settingRecipient === "string" ? settingRecipient : undefined);
      const recipientField = body?.to !== undefined ? "to" : "settings.test_recipient";
      if (!row) {
        // in_app (everywhere) and every channel in sandbox deliver through a built-in provider
        const builtIn = builtInProvider(auth.environment, channel);
        if (!builtIn) throw notConfigured(channel);
        if (!to) {
          return { data: { success: true, checked: "configuration" as const, message: `No configuration: ${channel} delivers through the built-in ${builtIn} provider; give "to" to send a test through it` } };
        }
        return { data: await sendChannelTest(scopeOf(auth), channel, builtIn, to, recipientField) };
      }
      let credentials: Record<string, unknown>;
      try {
        credentials = decryptCredentials(row);
      } catch (err) {
        if (!(err instanceof DecryptionError)) throw err;
        logger.warn({ tenant_id: auth.tenantId, channel, key_id: err.keyId }, "channel credentials failed to decrypt");
        return { data: { success: false, checked: "configuration" as const, message: "The stored credentials cannot be decrypted; save the configuration again" } };
      }
      const details = checkConfig(channel, { provider: row.provider, credentials, settings: row.settings ?? {}, active: row.active });
      if (Object.keys(details).length) {
        return { data: { success: false, checked: "configuration" as const, message: `The configuration is invalid: ${Object.keys(details).join(", ")}` } };
      }
      if (!row.active) {
        return { data: { success: false, checked: "configuration" as const, message: "The configuration is valid but inactive; activate it to deliver through it" } };
      }
      const primary = to ? await sendChannelTest(scopeOf(auth), channel, row.provider, to, recipientField) : await verifyChannel(row.provider, credentials, row.settings ?? {});
      if (!row.failover?.length) return { data: primary };
      // every backup is tested too (checked the same way, straight through its adapter when there is a recipient)
      let backups: FailoverFields[];
      try {
        backups = decryptFailover(row);
      } catch (err) {
        if (!(err instanceof DecryptionError)) throw err;
        return { data: { ...primary, success: false, message: `${primary.message}. The stored backup credentials cannot be decrypted; save the configuration again` } };
      }
      const results: ChannelTestOutcome[] = [];
      for (const b of backups) {
        const found = checkConfig(channel, { provider: b.provider, credentials: b.credentials, settings: b.settings, active: true });
        if (Object.keys(found).length) results.push({ success: false, checked: "configuration", message: `The configuration is invalid: ${Object.keys(found).join(", ")}` });
        else results.push(to ? await sendDirectTest(scopeOf(auth), channel, b.provider, b.credentials, b.settings, to) : await verifyChannel(b.provider, b.credentials, b.settings));
      }
      const providers = [
        { provider: row.provider, role: "primary" as const, ...primary },
        ...backups.map((b, i) => ({ provider: b.provider, role: "failover" as const, ...results[i]! })),
      ];
      const failed = providers.filter((p) => !p.success);
      const message = failed.length === 0 ? `${primary.message}; every backup provider passed too` : `${primary.message}; failed: ${failed.map((p) => `${p.role} ${p.provider}`).join(", ")}`;
      return { data: { ...primary, success: failed.length === 0, message, providers } };
    },
    {
      access: "secret-write",
      params: ChannelParams,
      body: t.Optional(ChannelTestBody),
      response: { 200: ChannelTestResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 404) },
      detail: {
        summary: "Test a channel against its provider",
        description:
          "Without a recipient: connects and authenticates without sending where the provider can (SMTP), otherwise checks the fields " +
          "(`checked: configuration`). With `to` (or settings.test_recipient): sends a test notification and answers with the provider's " +
          "answer to its first attempt, waiting at most 15 s (`checked: delivery`, `provider_response`, `notification_id`).",
        tags: ["channels"],
      },
    },
  );
