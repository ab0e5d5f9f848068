// <nms-preferences>: the subscriber's preference categories x channels as switches, for the tenant's
// own pages; authenticated like <nms-inbox> (publishable key, subscriber hash, allowed origins).
import { css, html, LitElement, nothing } from "lit";
import type { CategoryStateRecord } from "../../schemas/inbox";
import { InboxApiError } from "./inbox-api";

const SCRIPT_API_URL = (() => {
  try {
    return new URL("../", import.meta.url).href.replace(/\/+$/, "");
  } catch {
    return "";
  }
})();

const TEXT = {
  en: { title: "Notification preferences", required: "Required", saved: "Saved", loading: "Loading…", error: "Your preferences could not be loaded.", other: "Other", email: "Email", whatsapp: "WhatsApp", sms: "SMS", in_app: "In the app", push: "Push" },
  pt_BR: { title: "Preferências de notificação", required: "Obrigatória", saved: "Salvo", loading: "Carregando…", error: "Não foi possível carregar suas preferências.", other: "Outras", email: "E-mail", whatsapp: "WhatsApp", sms: "SMS", in_app: "No aplicativo", push: "Notificação push" },
} as const;
type Lang = keyof typeof TEXT;

export class NmsPreferences extends LitElement {
  static override styles = css`
    :host { display: block; font-family: var(--nms-preferences-font, system-ui, sans-serif); color: #1f2937; }
    fieldset { border: 1px solid #d1d5db; border-radius: 8px; margin: 0 0 12px; padding: 8px 12px; }
    legend { font-weight: 600; }
    label { display: inline-flex; gap: 6px; align-items: center; margin: 4px 14px 4px 0; }
    input { accent-color: var(--nms-preferences-accent, #2563eb); }
    .locked, .status { color: #6b7280; font-size: 0.9em; }
    .error { color: #b91c1c; }
  `;
  static override properties = {
    apiUrl: { attribute: "api-url" },
    publishableKey: { attribute: "publishable-key" },
    subscriberId: { attribute: "subscriber-id" },
    subscriberHash: { attribute: "subscriber-hash" },
    locale: {},
    _categories: { state: true },
    _status: { state: true },
    _message: { state: true },
  };

  declare apiUrl: string | null;
  declare publishableKey: string | null;
  declare subscriberId: string | null;
  declare subscriberHash: string | null;
  declare locale: string | null;
  declare _categories: CategoryStateRecord[];
  declare _status: "loading" | "ready" | "error";
  declare _message: string;

  constructor() {
    super();
    this.apiUrl = null;
    this.publishableKey = null;
    this.subscriberId = null;
    this.subscriberHash = null;
    this.locale = null;
    this._categories = [];
    this._status = "loading";
    this._message = "";
  }

  private get language(): Lang {
    const l = (this.locale ?? (typeof navigator !== "undefined" ? navigator.language : "en")).toLowerCase();
    return l.startsWith("pt") ? "pt_BR" : "en";
  }

  private get base(): string {
    const api = (this.apiUrl ?? SCRIPT_API_URL).replace(/\/+$/, "");
    return `${api}/v1/subscribers/${encodeURIComponent(this.subscriberId ?? "")}/preferences`;
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.base + path, {
        method,
        credentials: "omit",
        headers: {
          authorization: `Bearer ${this.publishableKey ?? ""}`,
          "x-subscriber-id": this.subscriberId ?? "",
          "x-subscriber-hash": this.subscriberHash ?? "",
          accept: "application/json",
          ...(body ? { "content-type": "application/json" } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      throw InboxApiError.network(err);
    }
    if (!res.ok) throw await InboxApiError.fromResponse(res);
    return (await res.json()) as T;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  async load(): Promise<void> {
    if (!this.publishableKey || !this.subscriberId || !this.subscriberHash) return;
    try {
      this._categories = (await this.request<{ data: CategoryStateRecord[] }>("GET", "/effective")).data;
      this._status = "ready";
    } catch (err) {
      this._status = "error";
      // the developer's detail goes to the console; the subscriber reads a sentence
      console.warn("nms-preferences:", (err as Error).message);
      this.dispatchEvent(new CustomEvent("nms-preferences-error", { detail: { code: (err as InboxApiError).code }, bubbles: true, composed: true }));
    }
  }

  private async toggle(category: string, channel: string, enabled: boolean): Promise<void> {
    this._message = "";
    try {
      await this.request("PUT", "", { preferences: [{ category, channel, enabled }] });
      await this.load();
      this._message = TEXT[this.language].saved;
      this.dispatchEvent(new CustomEvent("nms-preferences-change", { detail: { category, channel, enabled }, bubbles: true, composed: true }));
    } catch (err) {
      this._message = (err as Error).message;
      await this.load();
    }
  }

  override render() {
    const t = TEXT[this.language];
    if (this._status === "loading") return html`<p class="status">${t.loading}</p>`;
    if (this._status === "error") return html`<p class="error" role="alert">${t.error}</p>`;
    return html`<section aria-label=${t.title}>
      ${this._categories.map(
        (c) => html`<fieldset>
          <legend>${c.key === "other" ? t.other : c.name}</legend>
          ${c.channels.map(
            (ch) => html`<label
              ><input
                type="checkbox"
                .checked=${ch.enabled}
                ?disabled=${ch.locked || c.key === "other"}
                @change=${(e: Event) => this.toggle(c.key, ch.channel, (e.target as HTMLInputElement).checked)}
              />${(t as Record<string, string>)[ch.channel] ?? ch.channel}</label
            >`,
          )}
          ${c.required ? html`<span class="locked">${t.required}</span>` : nothing}
        </fieldset>`,
      )}
      <p class="status" role="status">${this._message}</p>
    </section>`;
  }
}

if (typeof customElements !== "undefined" && !customElements.get("nms-preferences")) customElements.define("nms-preferences", NmsPreferences);
