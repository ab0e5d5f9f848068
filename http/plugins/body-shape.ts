// The body's shape as its schema declares it, checked before Elysia's normalizer and coercion: an undeclared
// field of a closed object is refused by name (not dropped), a JSON string for a number or boolean is refused (not converted).
import { Value } from "@sinclair/typebox/value";
import { fieldErrors, validationFailed } from "../../basics/errors";
import { validationDetails } from "./errors";

type Schema = Record<string, any>;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The schema's object variants: itself, or the object members of a union (Nullable, Optional). */
function objectVariants(schema: Schema): Schema[] {
  if (schema.type === "object") return [schema];
  if (Array.isArray(schema.anyOf)) return schema.anyOf.flatMap((s: Schema) => (s && typeof s === "object" ? objectVariants(s) : []));
  return [];
}

/** True when the schema accepts nothing but an object (null, arrays and scalars are refused). */
export function declaresObjectOnly(schema: Schema | undefined): boolean {
  if (!schema || typeof schema !== "object") return false;
  if (schema.type === "object") return true;
  return Array.isArray(schema.anyOf) && schema.anyOf.length > 0 && schema.anyOf.every((s: Schema) => declaresObjectOnly(s));
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * Walks a body with its schema: `visit` sees each value with the schema that judges it (array items
 * through `items`, object fields through the one object variant's properties, patternProperties or
 * additionalProperties schema), `undeclared` each path (as validation details name them: `a.b`,
 * `a[0].b`) of a key the schema does not declare where it says additionalProperties: false. A union
 * with several object variants is left to the validator (which variant was meant is not knowable here).
 */
function walkBody(schema: Schema | undefined, value: unknown, path: string, visit: (schema: Schema, value: unknown, path: string) => void, undeclared: (path: string) => void): void {
  if (!schema || typeof schema !== "object") return;
  visit(schema, value, path);
  if (Array.isArray(value)) {
    const items = schema.type === "array" ? schema.items : undefined;
    if (items && typeof items === "object" && !Array.isArray(items)) value.forEach((v, i) => walkBody(items, v, `${path}[${i}]`, visit, undeclared));
    return;
  }
  if (!isPlainObject(value)) return;
  const variants = objectVariants(schema);
  if (variants.length !== 1) return;
  const object = variants[0]!;
  const properties: Schema = object.properties ?? {};
  const patterns = Object.entries<Schema>(object.patternProperties ?? {}).map(([re, s]) => [new RegExp(re), s] as const);
  for (const key of Object.keys(value)) {
    const at = join(path, key);
    if (Object.hasOwn(properties, key)) {
      walkBody(properties[key], value[key], at, visit, undeclared);
      continue;
    }
    const pattern = patterns.find(([re]) => re.test(key));
    if (pattern) walkBody(pattern[1], value[key], at, visit, undeclared);
    else if (object.additionalProperties === false) undeclared(at);
    else if (isPlainObject(object.additionalProperties)) walkBody(object.additionalProperties, value[key], at, visit, undeclared);
  }
}

const SCALARS: Record<string, string> = { number: "must be number", integer: "must be integer", boolean: "must be boolean" };

/** Elysia's `t.Integer` and `t.Numeric` are a union of the number and a string it converts (`format` integer or numeric). */
const isConversion = (s: Schema) => s?.type === "string" && (s.format === "integer" || s.format === "numeric");

/** What a string given where the schema takes only numbers or booleans (or null) is told; undefined when a string fits. */
function scalarOnly(schema: Schema): string | undefined {
  if (typeof schema.type === "string") return SCALARS[schema.type];
  if (!Array.isArray(schema.anyOf) || schema.anyOf.length === 0) return undefined;
  const said: (string | undefined)[] = schema.anyOf
    .filter((s: Schema) => !isConversion(s))
    .map((s: Schema) => (s?.type === "null" ? "null" : s && typeof s === "object" ? scalarOnly(s) : undefined));
  if (said.length === 0) return undefined;
  if (said.some((m) => m === undefined)) return undefined;
  return said.find((m) => m !== "null");
}

/**
 * A route's body schema as it will be enforced: a top-level object that says nothing about other
 * fields is closed (additionalProperties: false). Elysia's validator does the same to the schema
 * object when it compiles the route, at its first request, and its normalizer then drops unknown
 * fields silently; closed here, when the route is declared, the document says so from the start and
 * checkBodyShape refuses them by name.
 */
export function closeBody<S>(schema: S): S {
  const s = schema as Schema | undefined;
  if (s && typeof s === "object" && s.type === "object" && !("additionalProperties" in s)) s.additionalProperties = false;
  return schema;
}

/** Without the undeclared fields: what the schema's own check should judge. */
function without(value: unknown, paths: Set<string>, path = ""): unknown {
  if (Array.isArray(value)) return value.map((v, i) => without(v, paths, `${path}[${i}]`));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const at = join(path, k);
    if (!paths.has(at)) Object.defineProperty(out, k, { value: without(v, paths, at), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The schema's other complaints about the body, as validation details (none when the check cannot run). */
function otherDetails(schema: Schema, body: unknown, unknown: string[]) {
  try {
    const all = [...Value.Errors(schema as any, without(body, new Set(unknown)))];
    return all.length ? validationDetails({ all }) : null;
  } catch {
    return null; // a schema kind Value cannot check alone: the unknown fields are enough to refuse
  }
}

/**
 * Refuses (422 validation_failed) a body that is not an object where the schema takes only objects
 * (an optional body's `null` was skipped by the validator: `rotate` with body null rotated), and
 * every undeclared field of a closed object, each named with "is not allowed", together with what
 * else the schema finds wrong, so one answer lists every field to fix.
 */
export function checkBodyShape(schema: Schema | undefined, body: unknown, json = true): void {
  if (!schema || typeof schema !== "object" || body === undefined) return;
  if (declaresObjectOnly(schema) && !isPlainObject(body)) throw validationFailed({ body: ["must be object"] });
  // one walk: the undeclared fields, and (a form's fields are all strings: only a JSON body's strings are the
  // client's choice of type) each string where the schema takes only a number, an integer or a boolean,
  // which Elysia's validator would convert ("14" to 14) and accept, storing a wrong type as if it were right
  const unknown: string[] = [];
  const strings: [string, string][] = [];
  const visit = (s: Schema, v: unknown, at: string) => {
    const told = json && typeof v === "string" ? scalarOnly(s) : undefined;
    if (told) strings.push([at || "body", told]);
  };
  walkBody(schema, body, "", visit, (at) => unknown.push(at));
  if (unknown.length === 0 && strings.length === 0) return;
  const details = (unknown.length ? otherDetails(schema, body, unknown) : null) ?? fieldErrors();
  for (const field of unknown) details[field] = ["is not allowed"];
  for (const [field, told] of strings) details[field] = [told];
  throw validationFailed(details);
}
