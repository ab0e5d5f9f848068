// A page's heading: the h1 the shell focuses after each navigation (screen readers announce the
// new page) and the document title, with room for the page's own buttons.
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · NMS`;
  }, [title]);
  return (
    <header class="page-header">
      <h1 id="page-title" tabIndex={-1}>
        {title}
      </h1>
      {children ? <div class="page-actions">{children}</div> : null}
    </header>
  );
}
