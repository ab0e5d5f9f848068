// Checks of a template's translations: a variable a translation uses and the base does not (a
// warning: that locale's recipients would miss it), and a stored template's validation per locale.
import { chooseLocale, type LocalizedSource } from "./locale";
import { extractVariables, validateTemplate, type ValidationResult } from "./render";

export const extraVariableWarning = (locale: string, v: string) => `Variable in translation ${locale} but not in the base: ${v}`;

interface BaseTemplate {
  content: string;
  variants: Record<string, string> | null;
  channel: string;
  language: string;
  variables: string[];
}

/** Variables of the translation that the base template neither uses nor declares. */
export function translationWarnings(base: BaseTemplate, locale: string, tr: LocalizedSource): string[] {
  const known = new Set([...extractVariables(base.content, base.variants), ...(base.variables ?? [])]);
  return extractVariables(tr.content, tr.variants)
    .filter((v) => !known.has(v) && ![...known].some((k) => v.startsWith(`${k}.`) || v.startsWith(`${k}[`)))
    .map((v) => extraVariableWarning(locale, v));
}

/**
 * POST /v1/templates/:id/validate. With a locale: the text that locale's recipients get (its
 * translation with the base's variants under it, or the fallback), plus its extra variables.
 * Without: the base, plus every translation's syntax errors (prefixed `<locale> `) and extra variables.
 */
export function validateStored(
  base: BaseTemplate,
  translations: Record<string, LocalizedSource>,
  locale: string | null,
): ValidationResult & { locale: string } {
  if (locale) {
    const text = chooseLocale(base, translations, [locale]);
    const r = validateTemplate({ content: text.content, variants: text.variants, channel: base.channel, variables: base.variables });
    const extra = text.translated ? translationWarnings(base, text.locale, translations[text.locale]!) : [];
    return { ...r, warnings: [...r.warnings, ...extra], locale: text.locale };
  }
  const r = validateTemplate({ content: base.content, variants: base.variants, channel: base.channel, variables: base.variables });
  const errors = [...r.errors];
  const warnings = [...r.warnings];
  for (const [loc, tr] of Object.entries(translations).sort(([a], [b]) => a.localeCompare(b))) {
    const check = validateTemplate({ content: tr.content, variants: tr.variants, channel: base.channel });
    errors.push(...check.errors.map((e) => `${loc} ${e}`));
    warnings.push(...translationWarnings(base, loc, tr));
  }
  const baseLocale = chooseLocale(base, null, []).locale;
  return { valid: errors.length === 0, errors, warnings, variables: r.variables, locale: baseLocale };
}
