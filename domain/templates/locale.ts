// Locales of templates and recipients: the one spelling we store (pt_BR), the fallback chain
// (pt_BR -> pt -> the template's language) and the choice of which translation a send renders.
import type { TemplateVariants } from "./render";

// language (2-3 letters), optional script (4 letters), optional region (2 letters or 3 digits);
// `_` and `-` both separate: pt_BR, pt-BR, pt, en, en-US, zh_Hant_TW, es-419
const LOCALE_RE = /^([A-Za-z]{2,3})(?:[_-]([A-Za-z]{4}))?(?:[_-]([A-Za-z]{2}|\d{3}))?$/;

export const LOCALE_MESSAGE = "must be a locale such as pt_BR, pt, en or en-US";

/**
 * The stored spelling of a locale: language lower case, script title case, region upper case,
 * joined by `_` (`pt-br` -> `pt_BR`, `zh-hant-tw` -> `zh_Hant_TW`), or null when it is not one.
 * `pt_BR` and `pt-BR` are the same locale.
 */
export function normalizeLocale(input: string | null | undefined): string | null {
  if (typeof input !== "string") return null;
  const m = LOCALE_RE.exec(input.trim());
  if (!m) return null;
  const [, lang, script, region] = m;
  const parts = [lang!.toLowerCase()];
  if (script) parts.push(script[0]!.toUpperCase() + script.slice(1).toLowerCase());
  if (region) parts.push(region.toUpperCase());
  return parts.join("_");
}

/** `zh_Hant_TW` -> [zh_Hant_TW, zh_Hant, zh]; `pt_BR` -> [pt_BR, pt]; nothing for a non-locale. */
export function fallbackChain(locale: string | null | undefined): string[] {
  const n = normalizeLocale(locale);
  if (!n) return [];
  const parts = n.split("_");
  const out: string[] = [];
  for (let k = parts.length; k >= 1; k--) out.push(parts.slice(0, k).join("_"));
  return out;
}

export interface LocalizedSource {
  content: string;
  variants: TemplateVariants;
}

export interface LocaleChoice extends LocalizedSource {
  /** the locale of the text chosen (the template's language when the base was used) */
  locale: string;
  /** true when a translation was used, false for the template's own content */
  translated: boolean;
}

/**
 * Which text a send renders. The wanted locale is the first of: the subscriber's `locale`, the
 * `locale` of the notification or trigger, the template's `language`. Its chain is walked
 * (pt_BR, then pt): the first step that is the template's own language takes the base, the first
 * that has a translation takes it; nothing found takes the base. A translation's variants replace
 * the base's of the same name; a variant it lacks is the base's (an email keeps a subject).
 */
export function chooseLocale(
  template: { content: string; variants: TemplateVariants | null; language: string },
  translations: Record<string, LocalizedSource> | null | undefined,
  wanted: (string | null | undefined)[],
): LocaleChoice {
  const baseLocale = normalizeLocale(template.language) ?? template.language;
  const base: LocaleChoice = { content: template.content, variants: template.variants ?? {}, locale: baseLocale, translated: false };
  const requested = wanted.map(normalizeLocale).find((l) => l !== null);
  if (!requested || !translations) return base;
  for (const candidate of fallbackChain(requested)) {
    if (candidate === baseLocale) return base;
    const tr = translations[candidate];
    if (tr) {
      return {
        content: tr.content,
        variants: { ...(template.variants ?? {}), ...(tr.variants ?? {}) },
        locale: candidate,
        translated: true,
      };
    }
  }
  return base;
}
