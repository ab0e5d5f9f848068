// The dashboard's sections in navigation order. A new section is one folder exporting its Section
// and one line here.
import { apiKeys } from "../api-keys";
import { auditLog } from "../audit-log";
import { billing } from "../billing";
import { channels } from "../channels";
import { domains } from "../domains";
import { notifications } from "../notifications";
import { overview } from "../overview";
import { subscribers } from "../subscribers";
import { suppressions } from "../suppressions";
import { team } from "../team";
import { templates } from "../templates";
import { webhooks } from "../webhooks";
import { workflows } from "../workflows";
import { topics } from "../topics";
import { deliverySettings } from "../delivery-settings";
import { preferenceCategories } from "../preference-categories";
import type { Section } from "./section";

export const SECTIONS: readonly Section[] = [
  overview,
  notifications,
  templates,
  workflows,
  topics,
  subscribers,
  preferenceCategories,
  channels,
  domains,
  suppressions,
  apiKeys,
  webhooks,
  auditLog,
  team,
  billing,
  deliverySettings,
];
