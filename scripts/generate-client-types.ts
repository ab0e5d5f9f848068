// Writes the TypeScript types the client package needs from the server's TypeBox schemas into
// client/schema-types/ (one file per schemas/ module that client/types.ts reads), so the published
// package imports nothing outside client/ and needs no TypeBox. `bun scripts/generate-client-types.ts`
// writes them; test/client/package.test.ts fails when they differ from what this would write.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Kind, OptionalKind, TransformKind, type TSchema } from "@sinclair/typebox";

const root = join(import.meta.dir, "..");
export const SCHEMA_TYPES_DIR = join(root, "client", "schema-types");

/** The schemas/ modules client/types.ts imports, as `import type * as X from "./schema-types/<module>"`. */
function modulesUsed(): string[] {
  const text = readFileSync(join(root, "client", "types.ts"), "utf8");
  return [...text.matchAll(/from "\.\/schema-types\/([\w-]+)(?:\.js)?"/g)].map((m) => m[1]!).sort();
}

const isSchema = (v: unknown): v is TSchema => typeof v === "object" && v !== null && Kind in v;
const IDENT = /^[A-Za-z_$][\w$]*$/;

function comment(text: unknown, indent: string): string {
  if (typeof text !== "string" || !text) return "";
  return `${indent}/** ${text.replace(/\*\//g, "*\\/").replace(/\n/g, " ")} */\n`;
}

/** The type Static<typeof schema> would give, as TypeScript text. */
export function typeOf(s: any, indent = ""): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  // Elysia's t.Integer and t.Numeric decode a numeric string or a number: Static is the decoded type, the union's last member
  if (TransformKind in s) {
    if (!Array.isArray(s.anyOf)) throw new Error("generate-client-types: a transform that is not Elysia's numeric union");
    return typeOf(s.anyOf[s.anyOf.length - 1], indent);
  }
  switch (s[Kind]) {
    case "String":
      return "string";
    case "Number":
    case "Integer":
      return "number";
    case "Boolean":
      return "boolean";
    case "Null":
      return "null";
    case "Any":
      return "any";
    case "Unknown":
      return "unknown";
    case "Literal":
      return JSON.stringify(s.const);
    case "Array":
      return `${wrap(typeOf(s.items, indent))}[]`;
    case "Union":
      return s.anyOf.map((x: any) => typeOf(x, indent)).join(" | ");
    case "Intersect":
      return s.allOf.map((x: any) => wrap(typeOf(x, indent))).join(" & ");
    case "Record": {
      const [, value] = Object.entries(s.patternProperties)[0] as [string, any];
      return `{ [key: string]: ${typeOf(value, indent)} }`;
    }
    case "Object": {
      const inner = `${indent}  `;
      const required = new Set<string>(s.required ?? []);
      const lines = Object.entries(s.properties as Record<string, any>).map(([k, v]) => {
        const optional = OptionalKind in v || !required.has(k);
        return `${comment(v.description, inner)}${inner}${IDENT.test(k) ? k : JSON.stringify(k)}${optional ? "?" : ""}: ${typeOf(v, inner)};`;
      });
      // a schema for extra keys (not just true/false) types them too, as TypeBox does
      if (isSchema(s.additionalProperties)) lines.push(`${inner}[key: string]: ${typeOf(s.additionalProperties, inner)};`);
      return lines.length ? `{\n${lines.join("\n")}\n${indent}}` : "{}";
    }
    default:
      throw new Error(`generate-client-types: no printer for TypeBox kind ${String(s[Kind])}`);
  }
}

const wrap = (t: string) => (/[|&]/.test(t) && !t.startsWith("{") ? `(${t})` : t);

/** File name -> content of every generated file. */
export async function generatedFiles(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const mod of modulesUsed()) {
    const exports = (await import(join(root, "schemas", `${mod}.ts`))) as Record<string, unknown>;
    const parts: string[] = [
      `// Generated from schemas/${mod}.ts by scripts/generate-client-types.ts: do not edit. The types\n` +
        `// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.`,
    ];
    for (const [name, value] of Object.entries(exports).sort(([a], [b]) => a.localeCompare(b))) {
      if (isSchema(value)) parts.push(`${comment((value as any).description, "")}export type ${name} = ${typeOf(value)};`);
      else if (Array.isArray(value) && value.every((v) => typeof v === "string")) parts.push(`export const ${name} = ${JSON.stringify(value)} as const;`);
    }
    out.set(`${mod}.ts`, `${parts.join("\n\n")}\n`);
  }
  return out;
}

if (import.meta.main) {
  const files = await generatedFiles();
  rmSync(SCHEMA_TYPES_DIR, { recursive: true, force: true });
  mkdirSync(SCHEMA_TYPES_DIR, { recursive: true });
  for (const [name, text] of files) writeFileSync(join(SCHEMA_TYPES_DIR, name), text);
  console.log(`wrote ${files.size} files to client/schema-types/: ${[...files.keys()].join(", ")}`);
}
