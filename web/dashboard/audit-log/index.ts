// The audit log section: the tenant's immutable record of changes, for owners and admins.
import type { Section } from "../app/section";
import { AuditLogPage } from "./audit-log-page";

export const auditLog: Section = { nav: "Audit log", path: "/audit-log", pages: [{ pattern: "/audit-log", view: AuditLogPage }] };
