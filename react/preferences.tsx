/** @jsxImportSource react */
// <Preferences>: the tenant's preference categories x channels as checkboxes for the subscriber,
// required categories checked and locked; each change saves through PUT /v1/subscribers/:id/preferences.
import { useState } from "react";
import type { Preference } from "@nms/client";
import { useNmsContext, usePreferences } from "./hooks.js";
import { PREFERENCES_CSS } from "./styles.js";
import { textFor } from "./text.js";

export interface PreferencesProps {
  /** The section's accessible name (default "Notification preferences", in the provider's locale). */
  heading?: string;
  /** After a switch was saved. */
  onChange?: (change: Preference) => void;
  /** Leave out the default style sheet (style the nms-preferences-* classes yourself). */
  unstyled?: boolean;
  className?: string;
}

export function Preferences({ heading, onChange, unstyled = false, className }: PreferencesProps) {
  const { locale } = useNmsContext();
  const t = textFor(locale);
  const prefs = usePreferences();
  const [failed, setFailed] = useState(false);
  const title = heading ?? t.preferencesTitle;

  const toggle = async (category: string, channel: Preference["channel"], enabled: boolean) => {
    setFailed(false);
    try {
      await prefs.update(category, channel, enabled);
      onChange?.({ category, channel, enabled });
    } catch {
      setFailed(true); // the reason is on the console (and in usePreferences().error)
    }
  };

  return (
    <section className={className ? `nms-preferences ${className}` : "nms-preferences"} aria-label={title}>
      {unstyled ? null : <style>{PREFERENCES_CSS}</style>}
      {prefs.status === "loading" ? (
        <p className="nms-preferences-status" role="status">
          {t.loading}
        </p>
      ) : prefs.status === "error" ? (
        <p className="nms-preferences-error" role="alert">
          {t.preferencesError}
        </p>
      ) : (
        <>
          {prefs.categories.map((c) => (
            <fieldset key={c.key}>
              <legend>{c.key === "other" ? t.other : c.name}</legend>
              {c.description ? <p className="nms-preferences-description">{c.description}</p> : null}
              {c.channels.map((ch) => (
                <label key={ch.channel}>
                  <input
                    type="checkbox"
                    checked={ch.enabled}
                    disabled={ch.locked || c.key === "other"}
                    onChange={(e) => void toggle(c.key, ch.channel as Preference["channel"], e.currentTarget.checked)}
                  />
                  {t.channels[ch.channel] ?? ch.channel}
                </label>
              ))}
              {c.required ? <span className="nms-preferences-locked">{t.required}</span> : null}
            </fieldset>
          ))}
          <p className="nms-preferences-status" role="status">
            {prefs.saving ? t.saving : failed ? t.notSaved : prefs.saved ? t.saved : ""}
          </p>
        </>
      )}
    </section>
  );
}
