// The one body parser: every request body is read within MAX_BODY_BYTES (1 MiB), JSON parsed with the
// API's rules (UTF-8, depth, characters PostgreSQL cannot store), other media types only where third parties post.
import { Elysia } from "elysia";
import { parseQuery } from "elysia/parse-query";
import { AppError } from "../../basics/errors";

export const MAX_BODY_BYTES = 1024 * 1024;

const JSON_TYPES = /^application\/(?:[\w.+-]+\+)?json/i;

// PostgreSQL text and jsonb cannot hold U+0000, and jsonb refuses lone surrogates: refused here as
// a client error (422 on the field) instead of a database failure (500) in whichever route stores it.
export const NUL_MESSAGE = "must not contain NUL (\\u0000) characters";

const SURROGATE_MESSAGE = "must not contain unpaired UTF-16 surrogates (\\ud800-\\udfff)";

/** Why PostgreSQL would refuse this text (NUL, or a lone surrogate jsonb rejects), or null. */
function unstorable(text: string): string | null {
  if (text.includes("\u0000")) return NUL_MESSAGE;
  return text.isWellFormed() ? null : SURROGATE_MESSAGE;
}

/** [path as fieldPath() writes it, message] of the first unstorable string (value or key), or null. */
function unstorablePath(value: unknown, path = ""): [string, string] | null {
  if (typeof value === "string") {
    const why = unstorable(value);
    return why ? [path || "body", why] : null;
  }
  if (value === null || typeof value !== "object") return null;
  for (const [k, v] of Object.entries(value)) {
    const p = Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
    const why = unstorable(k);
    if (why) return [p, why];
    const found = unstorablePath(v, p);
    if (found) return found;
  }
  return null;
}

// Deeper JSON overflowed the stack of the validator's error formatter and of PostgreSQL's jsonb
// parser (500s); no field of this API needs more.
export const MAX_JSON_DEPTH = 64;

/** True when valid JSON text nests objects/arrays deeper than `limit` (a scan, no recursion). */
function nestsDeeperThan(text: string, limit: number): boolean {
  if (text.length <= limit * 2) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Query parameter (or "path") of a URL whose percent-decoded form holds U+0000, or null. */
export function nulInUrl(url: string): string | null {
  if (!/%00/.test(url)) return null;
  const u = new URL(url);
  if (/%00/.test(u.pathname)) return "path";
  for (const [k, v] of u.searchParams) if (k.includes("\u0000") || v.includes("\u0000")) return k;
  return null;
}

/** PostgreSQL's refusals of characters it cannot store: only client input can carry them. */
export const UNSTORABLE_TEXT = new Set(["22021", "22P05"]);

/**
 * Paths whose request bodies this API defines: JSON only, anything else is 415. The other paths
 * (/webhooks/*, /unsubscribe/*) take what a third party sends: a provider's form callback, a
 * mailbox's RFC 8058 one-click POST.
 */
export const JSON_ONLY_PATH = /^\/(?:v1|api|api-keys|auth)(?:\/|$)/;

const tooLarge = () => new AppError("payload_too_large", `Request body exceeds ${MAX_BODY_BYTES} bytes`);

/**
 * How much of a refused chunked body is still read (and dropped) before answering 413: closing with
 * the client still writing made it see EPIPE or a reset instead of the answer. Bounded both ways, so
 * a client streaming without end costs at most this much and this long.
 */
export const DRAIN_MAX_BYTES = 8 * 1024 * 1024;
export const DRAIN_MAX_MS = 5_000;

/** Reads and drops the rest of a body, up to DRAIN_MAX_BYTES in all or DRAIN_MAX_MS; then lets go of it. */
export async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, alreadyRead: number): Promise<void> {
  const until = Date.now() + DRAIN_MAX_MS;
  let seen = alreadyRead;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    while (seen <= DRAIN_MAX_BYTES) {
      const left = until - Date.now();
      if (left <= 0) break;
      const next = await Promise.race([
        reader.read(),
        new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), left))),
      ]);
      clearTimeout(timer);
      if (next === null || next.done) break;
      seen += next.value.byteLength;
    }
  } catch {
    // the client went away: nothing left to drain
  } finally {
    clearTimeout(timer);
    void reader.cancel().catch(() => {});
  }
}

/**
 * The body's bytes, refusing more than MAX_BODY_BYTES. A Content-Length body was checked in
 * onRequest; a chunked one is kept until the limit, then the rest is drained (bounded: drain) so the
 * client reads the 413, and no body of any size is buffered whole (and Bun's own limit, which
 * answers an empty 413, is never reached).
 */
async function readBody(request: Request): Promise<Uint8Array> {
  if (request.headers.has("content-length")) return new Uint8Array(await request.arrayBuffer());
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      chunks.length = 0;
      await drain(reader, size);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

// fatal: invalid UTF-8 is refused instead of being stored as U+FFFD
const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseJson(bytes: Uint8Array, request: Request): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError("invalid_json", "Request body is not valid UTF-8 JSON");
  }
  (request as any).__rawBody = text;
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", "Request body is not valid JSON");
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new AppError("validation_failed", "Validation failed", {
      body: [`must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`],
    });
  }
  // only \u escapes can carry these: raw NUL is invalid JSON, and decoding UTF-8 never yields a lone surrogate
  if (/\\u(?:0000|d[89a-f])/i.test(text)) {
    const bad = unstorablePath(parsed);
    if (bad) throw new AppError("validation_failed", "Validation failed", { [bad[0]]: [bad[1]] });
  }
  return parsed;
}

/**
 * A body a third party defines (see JSON_ONLY_PATH), parsed the way Elysia's own parsers would. A
 * form's text stays on the request (`__rawBody`, as for JSON) for a route whose signature covers it.
 */
async function parseForeign(bytes: Uint8Array, type: string, request: Request): Promise<unknown> {
  const mime = type.split(";")[0]!.trim().toLowerCase();
  if (mime === "application/x-www-form-urlencoded") {
    const text = new TextDecoder().decode(bytes);
    (request as any).__rawBody = text;
    return parseQuery(text);
  }
  if (mime === "multipart/form-data") {
    const form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": type } }).formData();
    return Object.fromEntries(form.entries());
  }
  if (mime.startsWith("text/")) return new TextDecoder().decode(bytes);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

/**
 * The one body parser (a global parse hook, so it runs before any route's own): every body is read
 * within MAX_BODY_BYTES; JSON is parsed with the rules above; on JSON_ONLY_PATH any other media
 * type is 415 unsupported_media_type (a form-encoded `curl -d` would otherwise reach validation as
 * {"<your JSON>": ""} and answer "channel is required"). It returns a value for every request
 * that has a body, so Elysia's fallback parsers never read one.
 */
export async function parseBody({ request }: { request: Request }): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!request.body) return JSON_TYPES.test(type) ? {} : undefined;
  const bytes = await readBody(request);
  if (JSON_TYPES.test(type)) return parseJson(bytes, request);
  if (bytes.byteLength === 0) return {};
  if (JSON_ONLY_PATH.test(new URL(request.url).pathname)) {
    const got = type.split(";")[0]!.trim();
    throw new AppError(
      "unsupported_media_type",
      `Request bodies are JSON: send Content-Type: application/json (got ${got ? JSON.stringify(got) : "no Content-Type"})`,
    );
  }
  return parseForeign(bytes, type, request);
}

export const bodyParserPlugin = new Elysia({ name: "plugins.body-parser" }).onParse({ as: "global" }, parseBody);
