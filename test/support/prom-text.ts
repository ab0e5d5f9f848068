// A strict parser of the Prometheus text exposition format (0.0.4) for tests: every line must be a
// comment (HELP/TYPE) or a sample of a declared family, label values unescaped; anything else throws.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** family name -> type (counter, gauge, histogram, summary, untyped) */
  types: Map<string, string>;
  /** sum of the values of `name` whose labels include every given label */
  value(name: string, labels?: Record<string, string>): number;
  /** the samples of `name` whose labels include every given label */
  find(name: string, labels?: Record<string, string>): Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** As Prometheus reads it (Go's ParseFloat): Inf and NaN in any case; prom-client writes "Nan". */
function parseValue(text: string, line: string): number {
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  const n = Number(text);
  if (text === "" || !Number.isFinite(n)) throw new Error(`bad sample value in: ${line}`);
  return n;
}

function parseLabels(text: string, line: string): [Record<string, string>, string] {
  const labels: Record<string, string> = {};
  let rest = text;
  for (;;) {
    rest = rest.trimStart();
    if (rest.startsWith("}")) return [labels, rest.slice(1)];
    const name = LABEL.exec(rest)?.[0];
    if (!name || rest[name.length] !== "=" || rest[name.length + 1] !== '"') throw new Error(`bad label in: ${line}`);
    rest = rest.slice(name.length + 2);
    let value = "";
    for (;;) {
      const c = rest[0];
      if (c === undefined) throw new Error(`unterminated label value in: ${line}`);
      rest = rest.slice(1);
      if (c === '"') break;
      if (c === "\\") {
        const e = rest[0];
        rest = rest.slice(1);
        if (e === "n") value += "\n";
        else if (e === "\\" || e === '"') value += e;
        else throw new Error(`bad escape in: ${line}`);
      } else value += c;
    }
    if (name in labels) throw new Error(`duplicate label ${name} in: ${line}`);
    labels[name] = value;
    rest = rest.trimStart();
    if (rest.startsWith(",")) rest = rest.slice(1);
    else if (!rest.startsWith("}")) throw new Error(`expected , or } in: ${line}`);
  }
}

/** The family a sample belongs to: histogram and summary samples carry _bucket, _sum, _count suffixes. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length);
      const type = types.get(base);
      if (type === "histogram" || type === "summary") return base;
    }
  }
  return undefined;
}

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: (.*))?$/.exec(line);
      if (!m) continue; // other comments are allowed
      if (m[1] === "TYPE") {
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(m[3] ?? "")) throw new Error(`bad TYPE line: ${line}`);
        if (types.has(m[2]!)) throw new Error(`family declared twice: ${line}`);
        types.set(m[2]!, m[3]!);
      }
      continue;
    }
    const name = NAME.exec(line)?.[0];
    if (!name) throw new Error(`bad sample line: ${line}`);
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith("{")) [labels, rest] = parseLabels(rest.slice(1), line);
    const parts = rest.trim().split(/\s+/);
    if (parts.length < 1 || parts.length > 2 || !rest.startsWith(" ")) throw new Error(`bad sample line: ${line}`);
    if (!familyOf(name, types)) throw new Error(`sample without a TYPE line: ${line}`);
    samples.push({ name, labels, value: parseValue(parts[0]!, line) });
  }
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return { samples, types, find, value: (name, labels) => find(name, labels).reduce((n, s) => n + s.value, 0) };
}
