// The look of <nms-inbox>: every colour, size and font comes from a CSS custom property with a
// default (the list is in docs/inbox-embed.md), so a host page themes it without piercing the shadow root.
import { css } from "lit";

export const inboxStyles = css`
  :host {
    --_bg: var(--nms-inbox-background, #ffffff);
    --_text: var(--nms-inbox-text, #1f2328);
    --_muted: var(--nms-inbox-muted, #59636e);
    --_border: var(--nms-inbox-border, #d1d9e0);
    --_accent: var(--nms-inbox-accent, #0969da);
    --_accent-text: var(--nms-inbox-accent-text, #ffffff);
    --_unread-bg: var(--nms-inbox-unread-background, #eef5ff);
    --_hover-bg: var(--nms-inbox-hover-background, #f3f5f7);
    --_error-bg: var(--nms-inbox-error-background, #fff1f0);
    --_error-text: var(--nms-inbox-error-text, #b42318);
    --_radius: var(--nms-inbox-radius, 8px);
    --_gap: var(--nms-inbox-spacing, 12px);

    display: block;
    box-sizing: border-box;
    height: var(--nms-inbox-height, 420px);
    font-family: var(--nms-inbox-font-family, inherit);
    font-size: var(--nms-inbox-font-size, 14px);
    line-height: 1.4;
    color: var(--_text);
    contain: layout paint;
  }
  :host([hidden]) {
    display: none;
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  .panel {
    display: flex;
    flex-direction: column;
    height: 100%;
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    box-shadow: var(--nms-inbox-shadow, none);
    overflow: hidden;
  }
  header {
    display: flex;
    align-items: center;
    gap: 8px;
    min-height: 48px;
    padding: 0 var(--_gap);
    border-bottom: 1px solid var(--_border);
    flex: none;
  }
  h2 {
    margin: 0;
    font-size: 1.05em;
    font-weight: 600;
  }
  /* always laid out (hidden by visibility when zero) so the header never shifts */
  .badge {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    min-width: 22px;
    height: 20px;
    padding: 0 6px;
    border-radius: 10px;
    background: var(--nms-inbox-badge-background, var(--_accent));
    color: var(--nms-inbox-badge-text, var(--_accent-text));
    font-size: 0.8em;
    font-weight: 600;
    line-height: 1;
    font-variant-numeric: tabular-nums;
  }
  .badge[data-count="0"] {
    visibility: hidden;
  }
  .spacer {
    flex: 1;
  }
  button {
    font: inherit;
    color: inherit;
  }
  .link-button {
    border: 0;
    background: none;
    padding: 6px 8px;
    border-radius: 6px;
    color: var(--_accent);
    cursor: pointer;
    white-space: nowrap;
  }
  .link-button:hover:not(:disabled) {
    background: var(--_hover-bg);
  }
  .link-button:disabled {
    color: var(--_muted);
    cursor: default;
  }
  :focus-visible {
    outline: var(--nms-inbox-focus-ring, 2px solid var(--_accent));
    outline-offset: -2px;
  }
  .body {
    flex: 1;
    min-height: 0;
    overflow-y: auto;
    overscroll-behavior: contain;
  }
  ul {
    list-style: none;
    margin: 0;
    padding: 0;
  }
  li + li {
    border-top: 1px solid var(--_border);
  }
  .item {
    display: grid;
    grid-template-columns: 10px 1fr auto;
    column-gap: 10px;
    width: 100%;
    padding: 10px var(--_gap);
    border: 0;
    background: transparent;
    text-align: left;
    cursor: pointer;
  }
  .item:hover {
    background: var(--_hover-bg);
  }
  .item[data-read="false"] {
    background: var(--_unread-bg);
  }
  .item[data-read="false"]:hover {
    background: var(--_hover-bg);
  }
  .dot {
    width: 8px;
    height: 8px;
    margin-top: 6px;
    border-radius: 50%;
    background: var(--nms-inbox-unread-dot, var(--_accent));
  }
  .item[data-read="true"] .dot {
    visibility: hidden;
  }
  .text {
    min-width: 0;
  }
  .title {
    display: block;
    font-weight: 600;
    overflow-wrap: anywhere;
  }
  .item[data-read="true"] .title {
    font-weight: 500;
  }
  .message {
    display: block;
    margin-top: 2px;
    color: var(--_muted);
    overflow-wrap: anywhere;
    white-space: pre-line;
  }
  time {
    color: var(--_muted);
    font-size: 0.85em;
    white-space: nowrap;
  }
  .state {
    display: flex;
    flex-direction: column;
    align-items: center;
    justify-content: center;
    gap: 8px;
    height: 100%;
    padding: var(--_gap);
    text-align: center;
    color: var(--_muted);
  }
  .error {
    align-items: stretch;
    justify-content: flex-start;
    text-align: left;
  }
  .error-box {
    padding: var(--_gap);
    border-radius: 6px;
    background: var(--_error-bg);
    color: var(--_error-text);
  }
  .error-box strong {
    display: block;
    margin-bottom: 4px;
  }
  .error-box code {
    font-size: 0.85em;
  }
  .error-code {
    display: block;
    margin-top: 4px;
    opacity: 0.8;
  }
  .hint {
    margin: 6px 0 0;
    color: var(--_text);
  }
  .reconnecting {
    color: var(--_muted);
    font-size: 0.85em;
  }
  .notice {
    flex: none;
    padding: 6px var(--_gap);
    border-top: 1px solid var(--_border);
    background: var(--_error-bg);
    color: var(--_error-text);
    font-size: 0.9em;
  }
  .more {
    display: flex;
    justify-content: center;
    padding: 8px;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
`;
