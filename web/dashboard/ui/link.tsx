// <Link>: an anchor inside the dashboard; a plain click navigates without reloading, while
// modified clicks (new tab, copy link) keep the browser's behaviour.
import type { ComponentChildren, TargetedMouseEvent } from "preact";
import { useDashboard } from "../app/context";

interface LinkProps {
  to: string;
  params?: Record<string, string | undefined>;
  children: ComponentChildren;
  class?: string;
  "aria-current"?: "page";
}

export function Link({ to, params, children, ...rest }: LinkProps) {
  const { link, go } = useDashboard();
  const onClick = (e: TargetedMouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    go(to, params);
  };
  return (
    <a {...rest} href={link(to, params)} onClick={onClick}>
      {children}
    </a>
  );
}
