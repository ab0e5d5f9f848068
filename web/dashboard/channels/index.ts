// The channels section: each channel's provider configuration, its form and its test button.
import type { Section } from "../app/section";
import { ChannelEditPage } from "./channel-edit-page";
import { ChannelsPage } from "./channels-page";

export const channels: Section = {
  nav: "Channels",
  path: "/channels",
  pages: [
    { pattern: "/channels", view: ChannelsPage },
    { pattern: "/channels/:channel", view: ChannelEditPage },
  ],
};
