// Generated from schemas/tenants.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type CreateTenantBody = {
  name: string;
  /** The tenant's first dashboard user (role owner). The response carries their one-time sign-in link, which is also mailed (logged without SMTP_URL); after it expires they sign in with this address on the dashboard's sign-in page. */
  owner_email?: string;
};

export type Offboarding = {
  tenant_id: string;
  tenant_name: string;
  status: "running" | "completed";
  /** The table being emptied now; null once completed */
  current_table: string | null;
  /** Tables emptied so far, in order */
  tables_done: string[];
  /** Tables holding the tenant's records (the audit log is kept and not counted) */
  tables_total: number;
  /** Rows deleted by the batches; children that leave by cascade with them (attempts, engagement records, preferences) are not counted */
  rows_deleted: number;
  requested_at: string;
  /** The last batch's time: a running offboarding whose updated_at stops moving is resumed by the retention job */
  updated_at: string;
  completed_at: string | null;
};

export type OffboardingResponse = {
  data: {
    tenant_id: string;
    tenant_name: string;
    status: "running" | "completed";
    /** The table being emptied now; null once completed */
    current_table: string | null;
    /** Tables emptied so far, in order */
    tables_done: string[];
    /** Tables holding the tenant's records (the audit log is kept and not counted) */
    tables_total: number;
    /** Rows deleted by the batches; children that leave by cascade with them (attempts, engagement records, preferences) are not counted */
    rows_deleted: number;
    requested_at: string;
    /** The last batch's time: a running offboarding whose updated_at stops moving is resumed by the retention job */
    updated_at: string;
    completed_at: string | null;
  };
};

export type TenantIdParams = {
  id: string;
};

export type TenantOwner = {
  id: string;
  email: string;
  role: "owner";
  /** Opens the dashboard signed in as the owner, in this tenant; works once */
  sign_in_url: string;
  /** When sign_in_url stops working (15 minutes) */
  sign_in_expires_at: string;
};

export type TenantWithKey = {
  id: string;
  name: string;
  created_at: string;
  api_key: {
    id: string;
    key_type: string;
    environment: string;
    prefix: string;
    raw_key: string;
  };
  /** null when the request named no owner_email */
  owner: {
    id: string;
    email: string;
    role: "owner";
    /** Opens the dashboard signed in as the owner, in this tenant; works once */
    sign_in_url: string;
    /** When sign_in_url stops working (15 minutes) */
    sign_in_expires_at: string;
  } | null;
};

export type TenantWithKeyResponse = {
  data: {
    id: string;
    name: string;
    created_at: string;
    api_key: {
      id: string;
      key_type: string;
      environment: string;
      prefix: string;
      raw_key: string;
    };
    /** null when the request named no owner_email */
    owner: {
      id: string;
      email: string;
      role: "owner";
      /** Opens the dashboard signed in as the owner, in this tenant; works once */
      sign_in_url: string;
      /** When sign_in_url stops working (15 minutes) */
      sign_in_expires_at: string;
    } | null;
  };
};
