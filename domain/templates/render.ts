// Template rendering and static analysis with liquidjs: variable extraction, preview/validate
// results, and the render the channel sender calls on every delivery (parsed templates cached).
import { Liquid, type Template } from "liquidjs";

/** Per-channel parts besides the main content, e.g. `subject`, `html_body`, `title`. */
export type TemplateVariants = Record<string, string>;

export interface RenderedParts {
  /** the rendered `content` */
  body: string;
  subject?: string;
  html_body?: string;
  [variant: string]: string | undefined;
}

export interface RenderResult {
  rendered: RenderedParts;
  /** `Missing variable: user.name` and friends; rendering still succeeded */
  warnings: string[];
  /** syntax or render errors, prefixed by the part (`content: ...`, `subject: ...`) */
  errors: string[];
  valid: boolean;
  /** variables the template uses (static analysis), in order of appearance */
  variables: string[];
}

export interface ValidationResult {
  valid: boolean;
  errors: string[];
  warnings: string[];
  variables: string[];
}

export interface TemplateSource {
  content: string;
  variants?: TemplateVariants | null;
  channel: string;
}

export const EMAIL_SUBJECT_WARNING = "Email templates should define a subject variant";
export const missingVariableWarning = (v: string) => `Missing variable: ${v}`;
export const undeclaredVariableWarning = (v: string) => `Variable used but not declared: ${v}`;

// Templates come from tenants: no file system (include/render only see an empty in-memory
// map), no prototype walking, and limits so one template cannot stall a delivery worker.
const ENGINE_OPTIONS = {
  strictVariables: false,
  strictFilters: true,
  ownPropertyOnly: true,
  templates: {} as Record<string, string>,
  parseLimit: 1_000_000,
  renderLimit: 250, // ms; rendering is synchronous, so this bounds how long one template can block the process
  memoryLimit: 10_000_000,
};
const textEngine = new Liquid(ENGINE_OPTIONS);
// html_body only: every `{{ value }}` is HTML-escaped (`| raw` opts out), other parts stay verbatim.
const htmlEngine = new Liquid({ ...ENGINE_OPTIONS, outputEscape: "escape" });

// ---------------------------------------------------------------------------------------------
// Parse cache: rendering sits on the delivery hot path and most sends reuse a few templates.

interface ParsedEntry {
  source: string;
  templates?: Template[];
  error?: string;
  variables?: string[];
}

const CACHE_LIMIT = 1_000;
// a few huge templates must not pin hundreds of MB: bound the cached source size too
const CACHE_CHARS_LIMIT = 20_000_000;
const cache = new Map<string, ParsedEntry>();
let cachedChars = 0;

export const MAX_TAGS_PER_PART = 1_000;

function countTags(source: string): number {
  let n = 0;
  for (let i = source.indexOf("{"); i !== -1 && i < source.length - 1; i = source.indexOf("{", i + 1)) {
    const next = source.charCodeAt(i + 1);
    if (next === 123 /* { */ || next === 37 /* % */) n++;
  }
  return n;
}

// outputEscape is applied when parsing, so html_body parses with its own engine and cache key
function parsed(source: string, html = false): ParsedEntry {
  const key = `${html ? "h" : "t"}${source.length}:${Bun.hash(source).toString(36)}`;
  const hit = cache.get(key);
  if (hit && hit.source === source) {
    // Map keeps insertion order: re-inserting marks the entry most recently used
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  let entry: ParsedEntry;
  const tags = countTags(source);
  if (tags > MAX_TAGS_PER_PART) {
    // liquidjs' static analysis grows quadratically with the tag count: refuse before parsing
    return { source, error: `too many Liquid tags (${tags}); a template part may hold at most ${MAX_TAGS_PER_PART}` };
  }
  try {
    entry = { source, templates: (html ? htmlEngine : textEngine).parse(source) };
  } catch (err) {
    entry = { source, error: errorMessage(err) };
  }
  const replaced = cache.get(key);
  if (replaced) cachedChars -= replaced.source.length;
  cache.set(key, entry);
  cachedChars += source.length;
  while (cache.size > CACHE_LIMIT || (cachedChars > CACHE_CHARS_LIMIT && cache.size > 1)) {
    const oldest = cache.keys().next().value!;
    cachedChars -= cache.get(oldest)!.source.length;
    cache.delete(oldest);
  }
  return entry;
}

/** visible for tests and metrics */
export function renderCacheSize(): number {
  return cache.size;
}

function errorMessage(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.split("\n")[0]!.trim();
}

// ---------------------------------------------------------------------------------------------
// Static analysis

type Segment = string | number | unknown;

/** ["user", "name"] -> "user.name"; ["items", 0, "title"] -> "items[0].title"; stops at a dynamic index */
function pathOf(segments: Segment[]): string | null {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (typeof s === "string") out += out ? `.${s}` : s;
    else break; // x[y]: the dynamic part is reported as its own variable
  }
  return out || null;
}

function variablesOf(entry: ParsedEntry): string[] {
  if (entry.variables) return entry.variables;
  if (!entry.templates) return (entry.variables = []);
  let analysis;
  try {
    analysis = textEngine.analyzeSync(entry.templates, { partials: false });
  } catch {
    return (entry.variables = []);
  }
  const found: { path: string; row: number; col: number }[] = [];
  for (const refs of Object.values(analysis.globals)) {
    for (const ref of refs as any[]) {
      const path = pathOf(ref.segments ?? []);
      if (path) found.push({ path, row: ref.location?.row ?? 0, col: ref.location?.col ?? 0 });
    }
  }
  found.sort((a, b) => a.row - b.row || a.col - b.col);
  return (entry.variables = dedupe(found.map((f) => f.path)));
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}

/** parts in a stable order: content first, then variants in their own key order */
function partsOf(content: string, variants?: TemplateVariants | null): [string, string][] {
  const parts: [string, string][] = [["content", content ?? ""]];
  for (const [k, v] of Object.entries(variants ?? {})) if (typeof v === "string") parts.push([k, v]);
  return parts;
}

/**
 * Variables used by content and variants, found by the Liquid parser (not a regex): nested
 * paths as "user.name", deduplicated, in order of appearance. Parts that do not parse add nothing.
 */
export function extractVariables(content: string, variants?: TemplateVariants | null): string[] {
  return dedupe(partsOf(content, variants).flatMap(([, src]) => variablesOf(parsed(src))));
}

// ---------------------------------------------------------------------------------------------
// Rendering

const COLLECTION_PROPS = new Set(["size", "first", "last"]);

function isPresent(scope: Record<string, unknown>, path: string): boolean {
  const segments = path.split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== "");
  let cur: unknown = scope;
  for (const seg of segments) {
    if (cur === null || cur === undefined) return false;
    if ((Array.isArray(cur) || typeof cur === "string") && COLLECTION_PROPS.has(seg)) return true;
    if (typeof cur !== "object" || !Object.prototype.hasOwnProperty.call(cur, seg)) return false;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur !== undefined && cur !== null;
}

/**
 * renderSync within renderLimit, tried up to three times when only the time limit was exceeded:
 * the limit is wall-clock, and a process descheduled or paused for GC on a loaded machine passed
 * 250 ms inside a one-variable template (a broadcast run failed `template_render_failed` so); a
 * template that is really too slow exceeds it every time and still fails.
 */
function renderBounded(templates: Template[], scope: object): string {
  for (let attempt = 1; ; attempt++) {
    try {
      return textEngine.renderSync(templates, scope);
    } catch (err) {
      if (attempt >= 3 || !/render limit exceeded/i.test(errorMessage(err))) throw err;
    }
  }
}

/**
 * Renders content (as `body`) and every variant. Missing variables render as "" with a
 * warning; values are HTML-escaped in `html_body` only. Never throws for template problems:
 * syntax and render errors come back in `errors` with `valid: false`.
 */
export function renderTemplate(source: TemplateSource, variables: Record<string, unknown> = {}): RenderResult {
  const scope = variables && typeof variables === "object" ? variables : {};
  const rendered: RenderedParts = { body: "" };
  const errors: string[] = [];
  const used: string[] = [];
  for (const [part, src] of partsOf(source.content, source.variants)) {
    const key = part === "content" ? "body" : part;
    const entry = parsed(src, part === "html_body");
    if (entry.error) {
      errors.push(`${part}: ${entry.error}`);
      rendered[key] = "";
      continue;
    }
    used.push(...variablesOf(entry));
    try {
      rendered[key] = renderBounded(entry.templates!, scope);
    } catch (err) {
      errors.push(`${part}: ${errorMessage(err)}`);
      rendered[key] = "";
    }
  }
  const vars = dedupe(used);
  const warnings = vars.filter((v) => !isPresent(scope, v)).map(missingVariableWarning);
  return { rendered, warnings, errors, valid: errors.length === 0, variables: vars };
}

function isDeclared(used: string, declared: string[]): boolean {
  return declared.some(
    (d) => used === d || used.startsWith(`${d}.`) || used.startsWith(`${d}[`) || d.startsWith(`${used}.`),
  );
}

/**
 * Checks a template without rendering: syntax errors (valid: false), a warning for an email
 * without a `subject` variant, and, when `variables` is given, one for each variable used
 * but not declared.
 */
export function validateTemplate(input: TemplateSource & { variables?: string[] | null }): ValidationResult {
  const errors: string[] = [];
  for (const [part, src] of partsOf(input.content, input.variants)) {
    const entry = parsed(src);
    if (entry.error) errors.push(`${part}: ${entry.error}`);
  }
  const variables = extractVariables(input.content, input.variants);
  const warnings: string[] = [];
  if (input.channel === "email" && !(typeof input.variants?.subject === "string" && input.variants.subject.trim() !== "")) {
    warnings.push(EMAIL_SUBJECT_WARNING);
  }
  if (Array.isArray(input.variables)) {
    for (const v of variables) if (!isDeclared(v, input.variables)) warnings.push(undeclaredVariableWarning(v));
  }
  return { valid: errors.length === 0, errors, warnings, variables };
}
