// The default look of <Inbox> and <Preferences>: one style sheet of nms-* classes, themed with CSS
// custom properties set on any ancestor; `unstyled` on a component leaves it out.

export const INBOX_CSS = `
.nms-inbox { position: relative; display: inline-block; font-family: var(--nms-font-family, inherit); font-size: var(--nms-font-size, 14px); color: var(--nms-text, #1f2328); }
.nms-inbox-bell { position: relative; display: inline-flex; align-items: center; justify-content: center; width: 40px; height: 40px; border: 1px solid var(--nms-border, #d1d9e0); border-radius: 50%; background: var(--nms-background, #fff); color: inherit; cursor: pointer; }
.nms-inbox-bell:focus-visible, .nms-inbox-item:focus-visible, .nms-inbox-action:focus-visible { outline: 2px solid var(--nms-accent, #0969da); outline-offset: 2px; }
.nms-inbox-badge { position: absolute; top: -4px; right: -4px; min-width: 18px; height: 18px; padding: 0 5px; box-sizing: border-box; border-radius: 9px; background: var(--nms-accent, #0969da); color: var(--nms-accent-text, #fff); font-size: 11px; font-weight: 600; line-height: 18px; text-align: center; }
.nms-inbox-popover { position: absolute; z-index: 1000; top: calc(100% + 8px); right: 0; width: var(--nms-inbox-width, 360px); max-height: var(--nms-inbox-height, 420px); display: flex; flex-direction: column; background: var(--nms-background, #fff); border: 1px solid var(--nms-border, #d1d9e0); border-radius: var(--nms-radius, 8px); box-shadow: var(--nms-shadow, 0 8px 24px rgba(0,0,0,.12)); overflow: hidden; }
.nms-inbox-header { display: flex; align-items: center; justify-content: space-between; gap: 8px; padding: 10px 12px; border-bottom: 1px solid var(--nms-border, #d1d9e0); }
.nms-inbox-header h2 { margin: 0; font-size: 1em; }
.nms-inbox-action { border: 0; background: none; color: var(--nms-accent, #0969da); cursor: pointer; font: inherit; padding: 4px; }
.nms-inbox-action:disabled { color: var(--nms-muted, #59636e); cursor: default; }
.nms-inbox-list { list-style: none; margin: 0; padding: 0; overflow-y: auto; }
.nms-inbox-item { display: block; width: 100%; text-align: left; border: 0; border-bottom: 1px solid var(--nms-border, #d1d9e0); background: none; padding: 10px 12px 10px 24px; font: inherit; color: inherit; cursor: pointer; position: relative; }
.nms-inbox-item:hover { background: var(--nms-hover-background, #f3f5f7); }
.nms-inbox-item[data-read="false"] { background: var(--nms-unread-background, #eef5ff); }
.nms-inbox-item[data-read="false"]::before { content: ""; position: absolute; left: 10px; top: 16px; width: 7px; height: 7px; border-radius: 50%; background: var(--nms-accent, #0969da); }
.nms-inbox-title { display: block; font-weight: 600; }
.nms-inbox-body { display: block; color: var(--nms-muted, #59636e); margin-top: 2px; }
.nms-inbox-time { display: block; color: var(--nms-muted, #59636e); font-size: .85em; margin-top: 4px; }
.nms-inbox-note { margin: 0; padding: 16px 12px; color: var(--nms-muted, #59636e); }
.nms-inbox-error { color: var(--nms-error-text, #b42318); }
.nms-sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
`;

export const PREFERENCES_CSS = `
.nms-preferences { font-family: var(--nms-font-family, inherit); color: var(--nms-text, #1f2328); }
.nms-preferences fieldset { border: 1px solid var(--nms-border, #d1d9e0); border-radius: var(--nms-radius, 8px); margin: 0 0 12px; padding: 8px 12px; }
.nms-preferences legend { font-weight: 600; padding: 0 4px; }
.nms-preferences-description { margin: 0 0 4px; color: var(--nms-muted, #59636e); }
.nms-preferences label { display: inline-flex; gap: 6px; align-items: center; margin: 4px 14px 4px 0; }
.nms-preferences input { accent-color: var(--nms-accent, #0969da); }
.nms-preferences-locked, .nms-preferences-status { color: var(--nms-muted, #59636e); font-size: .9em; }
.nms-preferences-error { color: var(--nms-error-text, #b42318); }
`;
