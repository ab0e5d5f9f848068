// The state behind @nms/react, outside React: one subscriber's inbox (pages, unread count, mark read)
// kept live by one event-stream connection, and their preferences; nothing runs until a hook retains it.
import { Nms, NmsError, type InboxEvent, type InboxItem, type Preference, type PreferenceCategoryState } from "@nms/client";

/** What <NmsProvider> is given: the same credentials as the <nms-inbox> web component. */
export interface NmsConfig {
  /** Base URL of the API, e.g. `https://nms.example.com` (a path prefix is kept; "" means this page's origin). */
  apiUrl: string;
  /** `pk_live_...` or `pk_test_...`: the environment follows the key. */
  publishableKey: string;
  /** The subscriber's `external_id`. */
  subscriberId: string;
  /** Hex HMAC-SHA256 of `subscriberId` under the environment's inbox secret, computed by your server. */
  subscriberHash: string;
  /** Items per page, 1-100 (default 20). */
  pageSize?: number;
}

export type LoadStatus = "loading" | "ready" | "error";
/** The live connection: `off` before a hook needs it and after an error a retry cannot fix. */
export type Connection = "off" | "connecting" | "live" | "reconnecting";

export interface InboxState {
  status: LoadStatus;
  /** Loaded items, newest first, as the API returns them. */
  items: InboxItem[];
  /** Items the subscriber has in all (more may be loaded with loadMore()). */
  total: number;
  unreadCount: number;
  /** Why the inbox cannot be shown (status "error"), or why the last action failed. */
  error: NmsError | null;
  connection: Connection;
  loadingMore: boolean;
}

export interface PreferencesState {
  status: LoadStatus;
  /** The tenant's categories with this subscriber's effective switch per channel (required ones locked). */
  categories: PreferenceCategoryState[];
  error: NmsError | null;
  /** A save is under way. */
  saving: boolean;
  /** The last save succeeded (cleared by the next one). */
  saved: boolean;
}

type Listener = () => void;

/** A minimal external store for useSyncExternalStore: a snapshot replaced on every change. */
export class Store<S extends object> {
  private listeners = new Set<Listener>();
  private users = 0;
  private stopTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    protected state: S,
    /** The snapshot rendered on the server and during hydration. */
    private readonly initial: S = state,
  ) {}

  readonly subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  readonly getSnapshot = (): S => this.state;
  readonly getServerSnapshot = (): S => this.initial;

  protected set(patch: Partial<S>): void {
    this.state = { ...this.state, ...patch };
    for (const l of [...this.listeners]) l();
  }

  /**
   * A component needs the data (called from an effect, so never on the server): the first user
   * starts the work, the last one's release stops it, a tick later (React's StrictMode mounts twice).
   */
  retain(): () => void {
    clearTimeout(this.stopTimer);
    if (this.users++ === 0 && !this.running) this.start();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.users === 0) this.stopTimer = setTimeout(() => this.users === 0 && this.stop(), 0);
    };
  }

  protected running = false;
  protected start(): void {
    this.running = true;
  }
  protected stop(): void {
    this.running = false;
  }
}

function asNmsError(err: unknown): NmsError {
  if (err instanceof NmsError) return err;
  return new NmsError({ status: 0, code: "connection_error", message: String((err as Error)?.message ?? err), cause: err });
}

/** A wrong key, hash, origin or subscriber: retrying cannot help. */
export function isFatal(err: NmsError): boolean {
  return err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
}

/** Exponential from `baseMs`, capped, with jitter in [50%, 100%] so stopped servers' clients do not return at once. */
export function reconnectDelay(attempt: number, baseMs = 3000, maxMs = 30_000, random = Math.random()): number {
  return Math.round(Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 16)) * (0.5 + random / 2));
}

function byNewest(items: InboxItem[]): InboxItem[] {
  const seen = new Set<string>();
  return items
    .filter((i) => !seen.has(i.id) && seen.add(i.id))
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1));
}

function warn(what: string, err: NmsError): void {
  // the developer's detail goes to the console; the components show the subscriber a sentence
  if (typeof console !== "undefined") console.warn(`@nms/react: ${what}: ${err.message} (${err.code}${err.requestId ? `, request ${err.requestId}` : ""})`);
}

const INITIAL_INBOX: InboxState = { status: "loading", items: [], total: 0, unreadCount: 0, error: null, connection: "off", loadingMore: false };
const COUNT_REFRESH_MS = 250;

export class InboxStore extends Store<InboxState> {
  private generation = 0;
  private stopper: AbortController | undefined;
  /**
   * @internal Called once per connection with its first bytes (the server has subscribed by then;
   * they carry its `retry:` delay).
   */
  onFirstByte: ((first: Uint8Array) => void) | undefined;
  /** Local changes (live events, optimistic marks) since the last server count, and requests under way. */
  private changes = 0;
  private inFlight = 0;
  private countTimer: ReturnType<typeof setTimeout> | undefined;
  private loaded = false;

  constructor(private readonly session: NmsSession) {
    super(INITIAL_INBOX);
  }

  protected override start(): void {
    super.start();
    const gen = ++this.generation;
    this.stopper = new AbortController();
    this.set({ connection: "connecting" });
    void this.run(gen, this.stopper.signal);
  }

  protected override stop(): void {
    super.stop();
    this.generation++;
    this.stopper?.abort();
    clearTimeout(this.countTimer);
    this.set({ connection: "off" });
  }

  /** Reloads the first page and the count, and opens a fresh connection. */
  refresh(): void {
    if (!this.running) return;
    this.stop();
    this.set({ status: this.loaded ? "ready" : "loading", error: null });
    this.start();
  }

  private async run(gen: number, signal: AbortSignal): Promise<void> {
    const { session } = this;
    let lastEventId: string | undefined;
    let attempt = 0;
    let baseMs = 3000; // until the server's `retry:` says otherwise
    while (gen === this.generation) {
      let error: NmsError | null = null;
      const resumed = lastEventId !== undefined;
      this.onFirstByte = (first) => {
        if (gen !== this.generation) return;
        const retry = /^retry: *(\d+)\r?$/m.exec(new TextDecoder().decode(first));
        if (retry) baseMs = Number(retry[1]);
        attempt = 0;
        this.set({ connection: "live" });
        // a connection without a replay may have missed anything: the first page says what is there
        if (!resumed) void this.loadFirst(gen);
      };
      try {
        const events = session.streamClient().subscribers.inbox.stream(session.config.subscriberId, { last_event_id: lastEventId }, { signal, maxRetries: 0 });
        for await (const e of events) {
          if (gen !== this.generation) return;
          lastEventId = e.id;
          this.onEvent(e);
        }
      } catch (err) {
        if (gen !== this.generation) return;
        error = asNmsError(err);
        if (isFatal(error)) {
          warn("the inbox stream was refused", error);
          this.set({ status: "error", error, connection: "off" });
          return;
        }
        // the list may still answer while the stream cannot (a proxy dropping it, say)
        if (!this.loaded) void this.loadFirst(gen);
      }
      if (gen !== this.generation) return;
      this.set({ connection: "reconnecting" });
      const retryAfter = Number(error?.headers?.get("retry-after"));
      const delay = error?.status === 429 && retryAfter > 0 ? retryAfter * 1000 : reconnectDelay(attempt++, baseMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, delay);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        }
        signal.addEventListener("abort", done);
      });
    }
  }

  private async loadFirst(gen: number): Promise<void> {
    const { session } = this;
    try {
      const page = await session.client().subscribers.inbox.list(session.config.subscriberId, { limit: session.pageSize, offset: 0 });
      if (gen !== this.generation) return;
      this.loaded = true;
      // items that arrived live while the page was on its way stay
      const live = this.state.items.filter((i) => !page.data.some((p) => p.id === i.id) && i.created_at >= (page.data[0]?.created_at ?? ""));
      this.changes++;
      this.set({ status: "ready", error: null, items: byNewest([...live, ...page.data]), total: page.meta.total + live.length, unreadCount: page.meta.unread_count });
      this.scheduleCount();
    } catch (err) {
      if (gen !== this.generation) return;
      const error = asNmsError(err);
      warn("the inbox could not be loaded", error);
      if (!this.loaded) this.set({ status: "error", error });
    }
  }

  /** The next page of older items. */
  async loadMore(): Promise<void> {
    const { session } = this;
    if (this.state.loadingMore || this.state.items.length >= this.state.total) return;
    const gen = this.generation;
    this.set({ loadingMore: true });
    try {
      const page = await session.client().subscribers.inbox.list(session.config.subscriberId, { limit: session.pageSize, offset: this.state.items.length });
      if (gen !== this.generation) return;
      this.set({ items: byNewest([...this.state.items, ...page.data]), total: page.meta.total, loadingMore: false });
    } catch (err) {
      if (gen !== this.generation) return;
      const error = asNmsError(err);
      warn("older notifications could not be loaded", error);
      this.set({ error, loadingMore: false });
    }
  }

  private onEvent(e: InboxEvent): void {
    const item = (e.data as { item?: InboxItem } | undefined)?.item;
    if (!item || typeof item.id !== "string") return;
    const known = this.state.items.find((i) => i.id === item.id);
    if (e.type === "inbox.notification.received") {
      if (known) return;
      this.changes++;
      this.set({ items: byNewest([item, ...this.state.items]), total: this.state.total + 1, unreadCount: this.state.unreadCount + (item.read ? 0 : 1) });
    } else if (e.type === "inbox.notification.read" && known && !known.read) {
      this.changes++;
      this.set({ items: this.state.items.map((i) => (i.id === item.id ? item : i)), unreadCount: Math.max(0, this.state.unreadCount - 1) });
    }
    this.scheduleCount();
  }

  /** The count follows the server: read again shortly after changes settle, unless more came meanwhile. */
  private scheduleCount(): void {
    clearTimeout(this.countTimer);
    const gen = this.generation;
    this.countTimer = setTimeout(async () => {
      if (this.inFlight > 0) return; // the action's end schedules the next one
      const changes = this.changes;
      try {
        const { count } = await this.session.client().subscribers.inbox.unreadCount(this.session.config.subscriberId);
        if (gen !== this.generation) return;
        if (changes === this.changes && this.inFlight === 0) this.set({ unreadCount: count });
        else this.scheduleCount();
      } catch {
        // the next change or reconnect reads it again; the local count stays meanwhile
      }
    }, COUNT_REFRESH_MS);
  }

  /** Shown at once, then sent; a refusal undoes it and sets `error`. */
  private async optimistic(apply: () => () => void, send: () => Promise<void>, what: string): Promise<void> {
    const gen = this.generation;
    this.changes++;
    this.inFlight++;
    const undo = apply();
    try {
      await send();
    } catch (err) {
      const error = asNmsError(err);
      warn(what, error);
      if (gen === this.generation) {
        this.changes++;
        undo();
        this.set({ error });
      }
    } finally {
      this.inFlight--;
      if (gen === this.generation) this.scheduleCount();
    }
  }

  /** Marks one item read (by item id); an item already read is left alone. */
  markRead(itemId: string): Promise<void> {
    const item = this.state.items.find((i) => i.id === itemId);
    if (!item || item.read) return Promise.resolve();
    const { session } = this;
    return this.optimistic(
      () => {
        this.set({
          items: this.state.items.map((i) => (i.id === itemId ? { ...i, read: true, read_at: new Date().toISOString() } : i)),
          unreadCount: Math.max(0, this.state.unreadCount - 1),
        });
        return () => this.set({ items: this.state.items.map((i) => (i.id === itemId ? item : i)), unreadCount: this.state.unreadCount + 1 });
      },
      async () => {
        const read = await session.client().subscribers.inbox.read(session.config.subscriberId, itemId);
        this.set({ items: this.state.items.map((i) => (i.id === itemId ? read : i)) });
      },
      "marking the notification read failed",
    );
  }

  markAllRead(): Promise<void> {
    const { session } = this;
    const before = this.state;
    const now = new Date().toISOString();
    return this.optimistic(
      () => {
        this.set({ items: before.items.map((i) => (i.read ? i : { ...i, read: true, read_at: now })), unreadCount: 0 });
        return () => this.set({ items: this.state.items.map((i) => before.items.find((b) => b.id === i.id) ?? i), unreadCount: before.unreadCount });
      },
      async () => {
        await session.client().subscribers.inbox.readAll(session.config.subscriberId);
      },
      "marking all notifications read failed",
    );
  }
}

const INITIAL_PREFERENCES: PreferencesState = { status: "loading", categories: [], error: null, saving: false, saved: false };

export class PreferencesStore extends Store<PreferencesState> {
  private generation = 0;

  constructor(private readonly session: NmsSession) {
    super(INITIAL_PREFERENCES);
  }

  protected override start(): void {
    super.start();
    void this.load();
  }

  protected override stop(): void {
    super.stop();
    this.generation++;
  }

  /** Reads the effective preferences again. */
  async load(): Promise<void> {
    const gen = ++this.generation;
    const { session } = this;
    try {
      const categories = await session.client().subscribers.preferences.effective(session.config.subscriberId);
      if (gen === this.generation) this.set({ status: "ready", categories, error: null });
    } catch (err) {
      if (gen !== this.generation) return;
      const error = asNmsError(err);
      warn("the preferences could not be loaded", error);
      this.set(this.state.status === "ready" ? { error } : { status: "error", error });
    }
  }

  /**
   * Turns one (category, channel) on or off through PUT /v1/subscribers/:id/preferences (audited, a
   * `subscriber.preferences_updated` webhook event), shown at once; then reads the effective state again.
   * Rejects with the API's NmsError (a required category cannot be turned off: 422).
   */
  async update(category: string, channel: Preference["channel"], enabled: boolean): Promise<void> {
    const { session } = this;
    this.set({
      saving: true,
      saved: false,
      error: null,
      categories: this.state.categories.map((c) =>
        c.key !== category ? c : { ...c, channels: c.channels.map((ch) => (ch.channel === channel ? { ...ch, enabled } : ch)) },
      ),
    });
    try {
      await session.client().subscribers.preferences.update(session.config.subscriberId, [{ category, channel, enabled }]);
      await this.load();
      this.set({ saving: false, saved: true });
    } catch (err) {
      const error = asNmsError(err);
      warn("the preference could not be saved", error);
      await this.load();
      this.set({ saving: false, error });
      throw error;
    }
  }
}

/**
 * One subscriber's connection to NMS (what <NmsProvider> holds): typed clients made on first use
 * (never during a server render), the inbox and preference stores.
 */
export class NmsSession {
  readonly inbox: InboxStore;
  readonly preferences: PreferencesStore;
  private nms: Nms | undefined;
  private streaming: Nms | undefined;

  constructor(readonly config: NmsConfig) {
    this.inbox = new InboxStore(this);
    this.preferences = new PreferencesStore(this);
  }

  get pageSize(): number {
    return Math.min(100, Math.max(1, Math.trunc(this.config.pageSize ?? 20)));
  }

  private options(fetchImpl: typeof fetch) {
    const c = this.config;
    return { baseUrl: c.apiUrl, apiKey: c.publishableKey, subscriberId: c.subscriberId, subscriberHash: c.subscriberHash, fetch: fetchImpl };
  }

  /** The typed client, authenticated as the subscriber (publishable key and subscriber hash). */
  client(): Nms {
    return (this.nms ??= new Nms(this.options(((input, init) => globalThis.fetch(input, init)) as typeof fetch)));
  }

  /** The client the inbox stream uses: it tells the inbox store when a connection's first byte arrives. */
  streamClient(): Nms {
    return (this.streaming ??= new Nms(
      this.options((async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await globalThis.fetch(input, init);
        const opened = this.inbox.onFirstByte;
        if (!res.ok || !res.body || !opened) return res;
        let first = true;
        const body = res.body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, out) {
              if (first) {
                first = false;
                opened(chunk);
              }
              out.enqueue(chunk);
            },
          }),
        );
        return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
      }) as typeof fetch),
    ));
  }
}
