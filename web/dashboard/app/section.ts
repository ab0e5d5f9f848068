// The shape of one dashboard section: its navigation entry and the pages (URL patterns) it owns.
// Each section folder exports one; app/sections.ts lists them.
import type { ComponentType } from "preact";

export interface PageProps {
  /** The URL pattern's named segments (/notifications/:id -> { id }). */
  params: Record<string, string>;
  /** The query string: filters and paging live there, so a copied URL shows the same list. */
  query: URLSearchParams;
}

export interface Section {
  /** The navigation label. */
  nav: string;
  /** The section's first page; navigation links here. */
  path: string;
  pages: { pattern: string; view: ComponentType<PageProps> }[];
}
