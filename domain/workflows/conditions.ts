// Step conditions (`if` on any workflow step): JSON Logic rules evaluated by json-logic-js, checked at
// definition time (one known operator per object) and evaluated over the run's data, subscriber and steps.
import jsonLogic from "json-logic-js";

/** json-logic-js's operators, less `log` (writes to the console) and `method` (calls object methods). */
const OPERATORS = new Set([
  "==", "===", "!=", "!==", ">", ">=", "<", "<=", "!!", "!", "%", "in", "cat", "substr", "+", "*", "-", "/", "min", "max", "merge",
  "var", "missing", "missing_some", "if", "?:", "and", "or", "filter", "map", "reduce", "all", "none", "some",
]);

const MAX_DEPTH = 32;
const MAX_JSON = 10_000;

/** Why `rule` is not an acceptable condition (null: it is). Every nested operator must be known. */
export function conditionProblem(rule: unknown): string | null {
  if (rule === null || typeof rule !== "object" || Array.isArray(rule)) return "must be a JSON Logic rule: an object with one operator, e.g. {\"==\": [{\"var\": \"data.plan\"}, \"pro\"]}";
  if (JSON.stringify(rule).length > MAX_JSON) return `must be at most ${MAX_JSON} characters of JSON`;
  return walk(rule, 0);
}

function walk(node: unknown, depth: number): string | null {
  if (depth > MAX_DEPTH) return `must nest at most ${MAX_DEPTH} levels`;
  if (Array.isArray(node)) {
    for (const n of node) {
      const p = walk(n, depth + 1);
      if (p) return p;
    }
    return null;
  }
  if (node === null || typeof node !== "object") return null;
  const keys = Object.keys(node);
  if (keys.length !== 1) return `must have exactly one operator per object (found ${keys.length ? keys.map((k) => `'${k}'`).join(", ") : "none"})`;
  const op = keys[0]!;
  if (!OPERATORS.has(op)) return `has an unknown operator '${op}'; known: ${[...OPERATORS].join(" ")}`;
  return walk((node as Record<string, unknown>)[op], depth + 1);
}

export type ConditionOutcome = { ok: true; value: boolean } | { ok: false; message: string };

/** Evaluates the rule (truthy as JSON Logic defines it); a rule that throws is an error, never a guess. */
export function evaluateCondition(rule: Record<string, unknown>, data: Record<string, unknown>): ConditionOutcome {
  try {
    return { ok: true, value: jsonLogic.truthy(jsonLogic.apply(rule as jsonLogic.RulesLogic, data)) };
  } catch (err) {
    return { ok: false, message: `The step's condition could not be evaluated: ${err instanceof Error ? err.message : String(err)}` };
  }
}
