// "Copy preference link" on a subscriber's page: a fresh signed link to their hosted preference
// center (POST /v1/subscribers/:id/preference-link), copied to the clipboard and shown with its expiry.
import { useState } from "preact/hooks";
import type { PreferenceLink, Subscriber } from "../../../client";
import { useDashboard } from "../app/context";
import { CopyButton } from "../ui/copy";
import { Time } from "../ui/format";
import { ErrorNotice } from "../ui/states";
import { useAction } from "../ui/use-load";

export function PreferenceLinkButton({ subscriber }: { subscriber: Subscriber }) {
  const { api } = useDashboard();
  const [link, setLink] = useState<PreferenceLink | null>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  const make = useAction(async () => {
    const l = await api.preferenceCenter.link(subscriber.id);
    setLink(l);
    try {
      await navigator.clipboard.writeText(l.url);
      setCopied(true);
    } catch {
      // a browser without clipboard access: the link is shown below to select by hand
      setCopied(false);
    }
  });
  return (
    <section aria-labelledby="preference-link-title">
      <h2 id="preference-link-title">Preference center</h2>
      <p>
        A signed link to this subscriber's own page of categories and channels, in their locale. Anyone holding it can change their preferences until it
        expires (7 days); each click makes a new one.
      </p>
      <div class="button-row">
        <button type="button" class="secondary" disabled={make.pending} onClick={() => make.run()}>
          {make.pending ? "Making the link…" : "Copy preference link"}
        </button>
      </div>
      {make.error ? <ErrorNotice error={make.error} title="No link made" /> : null}
      {link ? (
        <div class="secret-value preference-link">
          <label for="preference-link-url">Preference link</label>
          <div class="secret-row">
            <input id="preference-link-url" type="text" readOnly value={link.url} spellcheck={false} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={link.url} label="Copy the preference link" />
          </div>
          <p class="hint preference-link-status" role="status">
            {copied ? "Copied to the clipboard. " : copied === false ? "The browser refused the clipboard: select the link and copy it. " : ""}
            Expires <Time iso={link.expires_at} />.
          </p>
        </div>
      ) : null}
    </section>
  );
}
