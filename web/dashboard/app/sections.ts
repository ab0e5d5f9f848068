// The dashboard's sections in navigation order. A new section (workflows, webhooks, domains once
// their APIs land) is one folder exporting its Section and one line here.
import { apiKeys } from "../api-keys";
import { auditLog } from "../audit-log";
import { channels } from "../channels";
import { notifications } from "../notifications";
import { overview } from "../overview";
import { subscribers } from "../subscribers";
import { team } from "../team";
import { templates } from "../templates";
import type { Section } from "./section";

export const SECTIONS: readonly Section[] = [overview, notifications, templates, subscribers, channels, apiKeys, auditLog, team];
