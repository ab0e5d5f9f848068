/** @jsxImportSource react */
// <Inbox>: a bell with the unread count that opens a popover with the subscriber's notifications
// (live, newest first), mark one read on click, mark all read, load older ones; keyboard and screen-reader friendly.
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import type { InboxItem } from "@nms/client";
import { useNmsContext, useNotifications } from "./hooks.js";
import { INBOX_CSS } from "./styles.js";
import { textFor } from "./text.js";

export interface InboxProps {
  /** The popover's title and the bell's accessible name (default "Notifications", in the provider's locale). */
  heading?: string;
  /** Start with the popover open. */
  defaultOpen?: boolean;
  /**
   * An item was activated (click, Enter or Space). It is marked read unless this returns `false`;
   * open a link from `item.data` here.
   */
  onItemClick?: (item: InboxItem) => boolean | void;
  /** Renders an item's content instead of title, body and time. */
  renderItem?: (item: InboxItem) => ReactNode;
  /** Leave out the default style sheet (style the nms-inbox-* classes yourself). */
  unstyled?: boolean;
  className?: string;
}

function BellIcon() {
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}

export function Inbox({ heading, defaultOpen = false, onItemClick, renderItem, unstyled = false, className }: InboxProps) {
  const { locale } = useNmsContext();
  const t = textFor(locale);
  const title = heading ?? t.notifications;
  const inbox = useNotifications();
  const [open, setOpen] = useState(defaultOpen);
  const popoverId = useId();
  const root = useRef<HTMLDivElement>(null);
  const bell = useRef<HTMLButtonElement>(null);

  // close on Escape (focus back on the bell) and on a click outside; only while open, only in a browser
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      bell.current?.focus();
    };
    const onPointer = (e: PointerEvent) => {
      if (root.current && !e.composedPath().includes(root.current)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);

  const unread = inbox.unreadCount;
  const label = unread > 0 ? `${title}, ${t.unread(unread)}` : title;
  const when = (iso: string) => {
    try {
      return new Intl.DateTimeFormat(locale.replace("_", "-"), { dateStyle: "short", timeStyle: "short" }).format(new Date(iso));
    } catch {
      return iso;
    }
  };
  const activate = (item: InboxItem) => {
    if (onItemClick?.(item) === false) return;
    void inbox.markRead(item.id);
  };

  return (
    <div className={className ? `nms-inbox ${className}` : "nms-inbox"} ref={root} data-connection={inbox.connection}>
      {unstyled ? null : <style>{INBOX_CSS}</style>}
      <button
        ref={bell}
        type="button"
        className="nms-inbox-bell"
        aria-label={label}
        aria-expanded={open}
        aria-controls={open ? popoverId : undefined}
        onClick={() => setOpen((o) => !o)}
      >
        <BellIcon />
        {unread > 0 ? (
          <span className="nms-inbox-badge" aria-hidden="true" data-testid="nms-inbox-badge">
            {unread > 99 ? "99+" : unread}
          </span>
        ) : null}
      </button>
      {open ? (
        <div className="nms-inbox-popover" id={popoverId} role="dialog" aria-label={title}>
          <div className="nms-inbox-header">
            <h2>{title}</h2>
            <button type="button" className="nms-inbox-action" disabled={unread === 0 || inbox.status !== "ready"} onClick={() => void inbox.markAllRead()}>
              {t.markAllRead}
            </button>
          </div>
          {inbox.status === "loading" ? (
            <p className="nms-inbox-note" role="status">
              {t.loading}
            </p>
          ) : inbox.status === "error" ? (
            <p className="nms-inbox-note nms-inbox-error" role="alert">
              {t.inboxError}{" "}
              <button type="button" className="nms-inbox-action" onClick={() => inbox.refresh()}>
                {t.tryAgain}
              </button>
            </p>
          ) : inbox.items.length === 0 ? (
            <p className="nms-inbox-note">{t.empty}</p>
          ) : (
            <ul className="nms-inbox-list" aria-label={title}>
              {inbox.items.map((item) => (
                <li key={item.id}>
                  <button type="button" className="nms-inbox-item" data-read={String(item.read)} onClick={() => activate(item)}>
                    {renderItem ? (
                      renderItem(item)
                    ) : (
                      <>
                        {item.read ? null : <span className="nms-sr-only">{t.unreadPrefix}</span>}
                        {item.title ? <span className="nms-inbox-title">{item.title}</span> : null}
                        {item.body ? <span className="nms-inbox-body">{item.body}</span> : null}
                        <time className="nms-inbox-time" dateTime={item.created_at}>
                          {when(item.created_at)}
                        </time>
                      </>
                    )}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {inbox.status === "ready" && inbox.hasMore ? (
            <button type="button" className="nms-inbox-action" disabled={inbox.loadingMore} onClick={() => void inbox.loadMore()}>
              {t.loadMore}
            </button>
          ) : null}
          {inbox.connection === "reconnecting" && inbox.status === "ready" ? <p className="nms-inbox-note">{t.reconnecting}</p> : null}
        </div>
      ) : null}
    </div>
  );
}
