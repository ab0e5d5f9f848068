// The outbound half of open and click tracking: the HTML pass done just before an email is sent
// (tracked links pointed at /track/click/<token>, the open pixel added) and the tracked-link list.
import { createTrackingToken, trackingUrl } from "../receipts/tracking-token";

// HTMLRewriter hands attribute values over as written: entities still encoded. URLs carry few.
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[e.toLowerCase()] ?? whole;
  });
}

/** A link worth tracking: an absolute http(s) URL (not mailto:, tel:, #anchors or relative ones). */
function trackable(href: string): string | null {
  const url = decodeAttribute(href).trim();
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    new URL(url);
    return url;
  } catch {
    return null;
  }
}

/**
 * One pass over the message's HTML: collects every trackable `<a href>` in document order (the link
 * index of its token) and, when asked, points it at its click URL and adds the open pixel.
 */
function htmlPass(html: string, rewrite: { notificationId: string; opens: boolean; clicks: boolean } | null): { html: string; links: string[] } {
  const links: string[] = [];
  let bodyClosed = false;
  const pixel = rewrite?.opens
    ? `<img src="${trackingUrl("open", createTrackingToken("open", rewrite.notificationId))}" width="1" height="1" alt="" ` +
      `style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`
    : "";
  let rewriter = new HTMLRewriter().on("a[href]", {
    element(el) {
      const url = trackable(el.getAttribute("href") ?? "");
      if (url === null) return;
      const index = links.push(url) - 1;
      if (rewrite?.clicks && index <= 0xffff) el.setAttribute("href", trackingUrl("click", createTrackingToken("click", rewrite.notificationId, index)));
    },
  });
  if (pixel) {
    rewriter = rewriter.on("body", {
      element(el) {
        el.onEndTag((end) => {
          end.before(pixel, { html: true });
          bodyClosed = true;
        });
      },
    });
  }
  const out = rewriter.transform(html);
  // a fragment without <body>: the pixel goes at the end
  return { html: pixel && !bodyClosed ? out + pixel : out, links };
}

/** The tracked links of a message's HTML, in the order their tokens number them. */
export function trackedLinks(html: string): string[] {
  return htmlPass(html, null).links;
}

/** The HTML as sent: links through /track/click/<token> (clicks), a 1x1 pixel before </body> (opens). */
export function withTracking(html: string, notificationId: string, opts: { opens: boolean; clicks: boolean }): string {
  if (!opts.opens && !opts.clicks) return html;
  return htmlPass(html, { notificationId, ...opts }).html;
}
