// <nms-inbox>: the embeddable in-app inbox (unread badge, list, mark one / all read) kept live by
// the subscriber's event stream; built into one ES module by scripts/build-web.ts (docs/inbox-embed.md).
import { html, LitElement, nothing, type PropertyValues } from "lit";
import { repeat } from "lit/directives/repeat.js";
import { InboxStream, type StreamEvent } from "./event-stream";
import { InboxApi, InboxApiError, type InboxItem } from "./inbox-api";
import { fullTime, relativeTime } from "./relative-time";
import { inboxStyles } from "./styles";

type Status = "loading" | "ready" | "error";
export type ConnectionState = "connecting" | "live" | "reconnecting" | "off";

/** The API this script was served by (…/embed/nms-inbox.js -> …), the default of api-url. */
const SCRIPT_API_URL = (() => {
  try {
    return new URL("../", import.meta.url).href.replace(/\/+$/, "");
  } catch {
    return "";
  }
})();

const CONFIG_PROPS = ["apiUrl", "publishableKey", "subscriberId", "subscriberHash", "pageSize"] as const;
const NOTICE_MS = 6000;
const COUNT_REFRESH_MS = 250;

/** Newest first (created_at, then id: ids are UUID v7, so they sort by creation too); one entry per id. */
function mergeItems(preferred: InboxItem[], others: InboxItem[]): InboxItem[] {
  const byId = new Map<string, InboxItem>();
  for (const item of [...others, ...preferred]) byId.set(item.id, item);
  return [...byId.values()].sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
  );
}

export class NmsInbox extends LitElement {
  static override styles = inboxStyles;
  static override properties = {
    apiUrl: { attribute: "api-url" },
    publishableKey: { attribute: "publishable-key" },
    subscriberId: { attribute: "subscriber-id" },
    subscriberHash: { attribute: "subscriber-hash" },
    pageSize: { attribute: "page-size", type: Number },
    heading: {},
    locale: {},
    _status: { state: true },
    _items: { state: true },
    _total: { state: true },
    _unread: { state: true },
    _error: { state: true },
    _notice: { state: true },
    _connection: { state: true },
    _announcement: { state: true },
    _busy: { state: true },
    _now: { state: true },
  };

  declare apiUrl: string | null;
  declare publishableKey: string | null;
  declare subscriberId: string | null;
  declare subscriberHash: string | null;
  declare pageSize: number;
  declare heading: string;
  declare locale: string | null;
  declare _status: Status;
  declare _items: InboxItem[];
  declare _total: number;
  declare _unread: number;
  declare _error: InboxApiError | null;
  declare _notice: string;
  declare _connection: ConnectionState;
  declare _announcement: string;
  declare _busy: boolean;
  declare _now: number;

  #api: InboxApi | null = null;
  #stream: InboxStream | null = null;
  /** Bumped by every restart: answers that belong to an older configuration are dropped. */
  #generation = 0;
  #listLoaded = false;
  #listLoading = false;
  /** Bumped by every local change of the unread count, so an older count from the server is not applied over it. */
  #changes = 0;
  /** Mark-read requests not answered yet: until they are, the server's count may predate them. */
  #inFlight = 0;
  #countTimer: ReturnType<typeof setTimeout> | undefined;
  #noticeTimer: ReturnType<typeof setTimeout> | undefined;
  #clock: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.apiUrl = null;
    this.publishableKey = null;
    this.subscriberId = null;
    this.subscriberHash = null;
    this.pageSize = 20;
    this.heading = "Notifications";
    this.locale = null;
    this._status = "loading";
    this._items = [];
    this._total = 0;
    this._unread = 0;
    this._error = null;
    this._notice = "";
    this._connection = "off";
    this._announcement = "";
    this._busy = false;
    this._now = Date.now();
  }

  /** Unread items of the subscriber, as the badge shows it. */
  get unreadCount(): number {
    return this._unread;
  }

  /** The items loaded so far, newest first (copies). */
  get items(): InboxItem[] {
    return this._items.map((i) => ({ ...i }));
  }

  /** Where the inbox is: "connecting", "live", "reconnecting" or "off". */
  get connection(): ConnectionState {
    return this._connection;
  }

  /** Reloads everything (the list, the count, a fresh stream). */
  refresh(): void {
    this.#restart();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#clock = setInterval(() => (this._now = Date.now()), 30_000);
    if (this.hasUpdated) this.#restart(); // moved in the document: start again
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearInterval(this.#clock);
    this.#teardown();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!this.hasUpdated || CONFIG_PROPS.some((p) => changed.has(p))) this.#restart();
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has("_unread") && changed.get("_unread") !== undefined) this.#emit("nms-inbox-unread-change", { count: this._unread });
    if (changed.has("_connection") && changed.get("_connection") !== undefined) this.#emit("nms-inbox-connection", { state: this._connection });
  }

  // ------------------------------------------------------------------------------------------
  // Data

  #emit(name: string, detail: unknown, cancelable = false): boolean {
    return this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable }));
  }

  #teardown(): void {
    this.#generation++;
    this.#stream?.stop();
    this.#stream = null;
    clearTimeout(this.#countTimer);
    clearTimeout(this.#noticeTimer);
  }

  #restart(): void {
    this.#teardown();
    const generation = this.#generation;
    this._items = [];
    this._total = 0;
    this._unread = 0;
    this._error = null;
    this._notice = "";
    this.#listLoaded = false;
    this.#listLoading = false;
    this.#inFlight = 0;
    if (!this.isConnected) return;
    const apiUrl = this.apiUrl || SCRIPT_API_URL;
    const missing = [
      ["api-url", apiUrl],
      ["publishable-key", this.publishableKey],
      ["subscriber-id", this.subscriberId],
      ["subscriber-hash", this.subscriberHash],
    ].filter(([, v]) => !v).map(([name]) => name);
    if (missing.length > 0) {
      this.#fail(new InboxApiError(0, "missing_attribute", `<nms-inbox> needs the ${missing.join(", ")} attribute${missing.length > 1 ? "s" : ""}.`));
      return;
    }
    this._status = "loading";
    const api = (this.#api = new InboxApi({
      apiUrl,
      publishableKey: this.publishableKey!,
      subscriberId: this.subscriberId!,
      subscriberHash: this.subscriberHash!,
    }));
    const current = () => generation === this.#generation;
    this.#stream = new InboxStream({
      connect: (lastEventId, signal) => api.openStream(lastEventId, signal),
      onOpen: (resumed) => {
        if (!current()) return;
        this._connection = "live";
        // Without a replay (first connection, or nothing received before a drop) the list may
        // lack items created while no stream listened: load the first page. With one, the
        // server replayed them; only the count is checked.
        if (!resumed || !this.#listLoaded) void this.#loadFirstPage(generation);
        else this.#scheduleCountRefresh();
      },
      onEvent: (e) => current() && this.#onStreamEvent(e),
      onRetry: () => {
        if (!current()) return;
        this._connection = "reconnecting";
        // show the list (or the reason it fails) while the stream keeps trying
        if (!this.#listLoaded) void this.#loadFirstPage(generation);
      },
      onFatal: (err) => {
        if (!current()) return;
        this._connection = "off";
        this.#fail(err);
      },
    });
    this._connection = "connecting";
    this.#stream.start();
  }

  /** page-size, within what the API accepts (1-100). */
  get #limit(): number {
    return Math.min(100, Math.max(1, Math.floor(this.pageSize) || 20));
  }

  #fail(err: unknown): void {
    const error = err instanceof InboxApiError ? err : InboxApiError.network(err);
    this._status = "error";
    this._error = error;
    console.error(this.#developerDetail(error));
    this.#emit("nms-inbox-error", { status: error.status, code: error.code, message: error.message });
  }

  #showNotice(message: string): void {
    this._notice = message;
    clearTimeout(this.#noticeTimer);
    this.#noticeTimer = setTimeout(() => (this._notice = ""), NOTICE_MS);
  }

  async #loadFirstPage(generation: number): Promise<void> {
    if (this.#listLoading || !this.#api) return;
    this.#listLoading = true;
    const changes = this.#changes;
    try {
      const page = await this.#api.list(0, this.#limit);
      if (generation !== this.#generation) return;
      this._items = mergeItems(page.data, this._items);
      this._total = Math.max(page.meta.total, this._items.length);
      if (changes === this.#changes && this.#inFlight === 0) this._unread = page.meta.unread_count;
      else this.#scheduleCountRefresh();
      const first = !this.#listLoaded;
      this.#listLoaded = true;
      this._status = "ready";
      this._error = null;
      if (first) this.#emit("nms-inbox-load", { items: this.items, total: this._total, unread_count: this._unread });
    } catch (err) {
      if (generation !== this.#generation) return;
      if (!this.#listLoaded || this._status === "error") this.#fail(err);
      else this.#showNotice((err as Error).message);
    } finally {
      if (generation === this.#generation) this.#listLoading = false;
    }
  }

  async #loadMore(): Promise<void> {
    const api = this.#api;
    if (!api || this._busy) return;
    const generation = this.#generation;
    this._busy = true;
    try {
      // offsets move as new items arrive; duplicates are merged away by id
      const page = await api.list(this._items.length, this.#limit);
      if (generation !== this.#generation) return;
      this._items = mergeItems(this._items, page.data);
      this._total = Math.max(page.meta.total, this._items.length);
    } catch (err) {
      if (generation === this.#generation) this.#showNotice((err as Error).message);
    } finally {
      if (generation === this.#generation) this._busy = false;
    }
  }

  /** The badge follows the server: a count fetched shortly after changes settle replaces the local guess. */
  #scheduleCountRefresh(): void {
    clearTimeout(this.#countTimer);
    const generation = this.#generation;
    this.#countTimer = setTimeout(async () => {
      if (this.#inFlight > 0) return; // the change's end schedules the next refresh
      const changes = this.#changes;
      try {
        const count = await this.#api!.unreadCount();
        if (generation !== this.#generation) return;
        if (changes === this.#changes && this.#inFlight === 0) this._unread = count;
        else this.#scheduleCountRefresh();
      } catch {
        // the next change or reconnect refreshes it; the local count stays meanwhile
      }
    }, COUNT_REFRESH_MS);
  }

  /** Replaces the item with the same id; fires nms-inbox-read when it turns read. */
  #put(next: InboxItem): void {
    const before = this._items.find((i) => i.id === next.id);
    this._items = this._items.map((i) => (i.id === next.id ? next : i));
    if (before && !before.read && next.read) this.#emit("nms-inbox-read", { item: { ...next } });
  }

  #onStreamEvent(e: StreamEvent): void {
    let item: InboxItem | undefined;
    try {
      item = JSON.parse(e.data)?.data?.item;
    } catch {
      return;
    }
    if (!item || typeof item.id !== "string") return;
    if (e.event === "inbox.notification.received") {
      if (this._items.some((i) => i.id === item.id)) return; // also in a page loaded meanwhile
      this.#changes++;
      this._items = mergeItems([item], this._items);
      this._total += 1;
      if (!item.read) this._unread += 1;
      // a new string each time, so a screen reader announces a repeated title too
      this._announcement = `New notification: ${item.title ?? item.body ?? ""}${this._announcement.endsWith("\u200b") ? "" : "\u200b"}`;
      this.#emit("nms-inbox-received", { item: { ...item } });
    } else if (e.event === "inbox.notification.read") {
      const known = this._items.find((i) => i.id === item.id);
      if (known && !known.read) {
        this.#changes++;
        this._unread = Math.max(0, this._unread - 1);
        this.#put(item);
      } else if (!known) {
        this.#emit("nms-inbox-read", { item: { ...item } });
      }
    }
    this.#scheduleCountRefresh();
  }

  /**
   * A change shown at once and then sent: `apply` updates the view and returns how to undo it,
   * `send` asks the API. While it runs no server count is applied (it may predate the change);
   * afterwards the count is read again. A failure undoes the change and says why.
   */
  async #optimistic(apply: () => () => void, send: (api: InboxApi) => Promise<void>, failure: string): Promise<void> {
    const api = this.#api;
    if (!api) return;
    const generation = this.#generation;
    this.#changes++;
    this.#inFlight++;
    const undo = apply();
    try {
      await send(api);
    } catch (err) {
      if (generation === this.#generation) {
        this.#changes++;
        undo();
        this.#showNotice(`${failure}: ${(err as Error).message}`);
      }
    } finally {
      if (generation === this.#generation) {
        this.#inFlight--;
        this.#scheduleCountRefresh();
      }
    }
  }

  #markRead(item: InboxItem): Promise<void> {
    if (item.read) return Promise.resolve();
    const generation = this.#generation;
    return this.#optimistic(
      () => {
        this._unread = Math.max(0, this._unread - 1);
        this.#put({ ...item, read: true, read_at: new Date().toISOString() });
        return () => {
          this._items = this._items.map((i) => (i.id === item.id ? item : i));
          this._unread += 1;
        };
      },
      async (api) => {
        const updated = await api.markRead(item.id);
        if (generation === this.#generation) this._items = this._items.map((i) => (i.id === updated.id ? updated : i));
      },
      "Could not mark it read",
    );
  }

  async #markAllRead(): Promise<void> {
    if (this._busy || this._unread === 0) return;
    this._busy = true;
    const generation = this.#generation;
    await this.#optimistic(
      () => {
        const before = this._items;
        const unreadBefore = this._unread;
        const now = new Date().toISOString();
        this._unread = 0;
        for (const item of before) if (!item.read) this.#put({ ...item, read: true, read_at: now });
        return () => {
          this._items = mergeItems(before, this._items);
          this._unread = unreadBefore;
        };
      },
      async (api) => {
        const updated = await api.markAllRead();
        if (generation === this.#generation) this.#emit("nms-inbox-read-all", { updated });
      },
      "Could not mark all read",
    );
    if (generation === this.#generation) this._busy = false;
  }

  // ------------------------------------------------------------------------------------------
  // Interaction

  #onItemClick(item: InboxItem): void {
    // cancelable: a host that handles the click itself (e.g. opens item.data.url) may also keep it unread
    if (this.#emit("nms-inbox-item-click", { item: { ...item } }, true)) void this.#markRead(item);
  }

  /** Arrow keys, Home and End move between items (Tab still walks through them too). */
  #onListKeydown(e: KeyboardEvent): void {
    const keys = ["ArrowDown", "ArrowUp", "Home", "End"];
    if (!keys.includes(e.key)) return;
    const buttons = [...this.renderRoot.querySelectorAll<HTMLButtonElement>("button.item")];
    if (buttons.length === 0) return;
    const at = buttons.indexOf((this.renderRoot as ShadowRoot).activeElement as HTMLButtonElement);
    const next =
      e.key === "Home" ? 0 : e.key === "End" ? buttons.length - 1 : Math.min(buttons.length - 1, Math.max(0, at + (e.key === "ArrowDown" ? 1 : -1)));
    e.preventDefault();
    buttons[next]!.focus();
  }

  // ------------------------------------------------------------------------------------------
  // Rendering

  #renderItem(item: InboxItem) {
    const locale = this.locale ?? undefined;
    const title = item.title ?? "";
    const body = item.body ?? "";
    return html`<li>
      <button class="item" part="item ${item.read ? "item-read" : "item-unread"}" data-id=${item.id} data-read=${String(item.read)} @click=${() => this.#onItemClick(item)}>
        <span class="dot" aria-hidden="true"></span>
        <span class="text">
          <span class="visually-hidden">${item.read ? "" : "Unread: "}</span>
          ${title ? html`<span class="title" part="title">${title}</span>` : nothing}
          ${body ? html`<span class="message" part="message">${body}</span>` : nothing}
        </span>
        <time part="time" datetime=${item.created_at} title=${fullTime(item.created_at, locale)}>${relativeTime(item.created_at, this._now, locale)}</time>
      </button>
    </li>`;
  }

  /**
   * What the site's developer needs to fix a failure: the API's message and code, and where to look.
   * It goes to the console (and the nms-inbox-error event), never into the box the end user reads.
   */
  #developerDetail(error: InboxApiError): string {
    const hint =
      error.code === "origin_not_allowed"
        ? ` Add ${location.origin} to the allowed origins of this environment (developer mode lets localhost through).`
        : error.status === 403 && error.code === "insufficient_permissions"
          ? " Check the subscriber-id and subscriber-hash attributes (the hash is hex HMAC-SHA256 of the subscriber id, keyed by the environment's inbox secret) and the key."
          : "";
    return `<nms-inbox>: ${error.message} (${error.code}${error.status ? `, HTTP ${error.status}` : ""}).${hint}`;
  }

  #renderError(error: InboxApiError) {
    return html`<div class="state error" role="alert">
      <div class="error-box" part="error">
        <span class="error-sentence">This inbox could not be loaded.</span>
      </div>
      ${error.code === "missing_attribute" ? nothing : html`<button class="link-button" @click=${() => this.#restart()}>Try again</button>`}
    </div>`;
  }

  #renderBody() {
    if (this._status === "error" && this._error) return this.#renderError(this._error);
    if (this._status === "loading") return html`<div class="state" part="loading">Loading notifications…</div>`;
    if (this._items.length === 0) return html`<div class="state" part="empty">No notifications yet</div>`;
    // keyed by id: an item arriving on top moves the others' elements instead of rewriting them, so focus stays on its item
    return html`<ul aria-label=${this.heading} @keydown=${this.#onListKeydown}>
        ${repeat(this._items, (item) => item.id, (item) => this.#renderItem(item))}
      </ul>
      ${this._items.length < this._total
        ? html`<div class="more">
            <button class="link-button" part="load-more" ?disabled=${this._busy} @click=${() => this.#loadMore()}>Load older notifications</button>
          </div>`
        : nothing}`;
  }

  override render() {
    const count = this._status === "ready" ? this._unread : 0;
    return html`<section class="panel" part="panel" aria-labelledby="heading" aria-busy=${this._status === "loading" ? "true" : "false"}>
      <header part="header">
        <h2 id="heading">${this.heading}<span class="visually-hidden">${count > 0 ? `, ${count} unread` : ""}</span></h2>
        <span class="badge" part="badge" data-count=${count} aria-hidden="true">${count > 99 ? "99+" : count}</span>
        <span class="spacer"></span>
        ${this._connection === "reconnecting" && this._status === "ready"
          ? html`<span class="reconnecting" part="connection" role="status">Reconnecting…</span>`
          : nothing}
        <button
          class="link-button mark-all"
          part="mark-all"
          aria-label="Mark all notifications as read"
          ?disabled=${this._status !== "ready" || count === 0 || this._busy}
          @click=${() => this.#markAllRead()}
        >
          Mark all as read
        </button>
      </header>
      <div class="body">${this.#renderBody()}</div>
      ${this._notice ? html`<div class="notice" part="notice" role="status">${this._notice}</div>` : nothing}
      <div class="visually-hidden" aria-live="polite" aria-atomic="true">${this._announcement}</div>
    </section>`;
  }
}

if (!customElements.get("nms-inbox")) customElements.define("nms-inbox", NmsInbox);

declare global {
  interface HTMLElementTagNameMap {
    "nms-inbox": NmsInbox;
  }
}
