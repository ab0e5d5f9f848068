// The channel parts (variants) the template editor and its translations offer per channel; other
// variant keys of a template are kept as they are.
import type { ChannelName } from "../../../client";

/** The variants the editor offers per channel; other variant keys of a template are kept as they are. */
export const VARIANT_FIELDS: Record<ChannelName, { key: string; label: string; multiline?: boolean }[]> = {
  email: [
    { key: "subject", label: "Subject" },
    { key: "html_body", label: "HTML body", multiline: true },
  ],
  in_app: [{ key: "title", label: "Title" }],
  push: [{ key: "title", label: "Title" }],
  sms: [],
  whatsapp: [],
};
