// The operator's plans (/billing/plans): the catalogue behind the admin token (/v1/admin/plans),
// create and change a plan with its limits. The token stays in this tab only (sessionStorage).
import { useMemo, useState } from "preact/hooks";
import { Nms, type Plan, type PlanCreateParams, type PlanLimits } from "../../../client";
import { shownError, type ShownError } from "../api";
import type { PageProps } from "../app/section";
import { Field, fieldErrors } from "../ui/field";
import { PageHeader } from "../ui/page-header";
import { ErrorNotice, Loading } from "../ui/states";
import { Choice } from "../ui/choice";
import { count, price } from "./money";

const TOKEN_KEY = "nms.adminToken";
const LIMITS: [keyof PlanLimits, string][] = [
  ["notifications_per_month", "Notifications per period"],
  ["api_requests_per_minute", "API requests per minute (empty: the service default)"],
  ["webhooks", "Webhooks"],
  ["domains", "Sending domains"],
  ["team_members", "Team members"],
  ["subscribers", "Subscribers"],
  ["retention_days", "Longest retention window, days (empty: unlimited)"],
];

interface Draft {
  id: string;
  name: string;
  price: string;
  currency: string;
  interval: "month" | "year";
  gatewayPriceId: string;
  limits: Record<keyof PlanLimits, string>;
}

const emptyDraft = (): Draft => ({ id: "", name: "", price: "0", currency: "usd", interval: "month", gatewayPriceId: "", limits: Object.fromEntries(LIMITS.map(([k]) => [k, ""])) as Draft["limits"] });

function draftOf(p: Plan): Draft {
  return {
    id: p.id,
    name: p.name,
    price: String(p.price_cents),
    currency: p.currency,
    interval: p.interval,
    gatewayPriceId: p.gateway_price_id ?? "",
    limits: Object.fromEntries(LIMITS.map(([k]) => [k, p.limits[k] === null ? "" : String(p.limits[k])])) as Draft["limits"],
  };
}

/** Numbers as typed; an empty limit is null (unlimited). A non-number goes as is, for the API's 422. */
function bodyOf(d: Draft): PlanCreateParams {
  const num = (s: string) => (s.trim() === "" ? null : Number.isFinite(Number(s)) ? Number(s) : (s as unknown as number));
  return {
    id: d.id.trim(),
    name: d.name.trim(),
    price_cents: num(d.price) ?? 0,
    currency: d.currency.trim(),
    interval: d.interval,
    gateway_price_id: d.gatewayPriceId.trim() || null,
    limits: Object.fromEntries(LIMITS.map(([k]) => [k, num(d.limits[k])])) as PlanLimits,
  };
}

export function OperatorPlansPage(_: PageProps) {
  const [token, setToken] = useState(() => sessionStorage.getItem(TOKEN_KEY) ?? "");
  const [typed, setTyped] = useState("");
  const admin = useMemo(() => (token ? new Nms({ baseUrl: window.location.origin, adminToken: token, maxRetries: 1 }) : null), [token]);
  const [plans, setPlans] = useState<Plan[] | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [editing, setEditing] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<ShownError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function reload(nms = admin) {
    if (!nms) return;
    setError(null);
    try {
      setPlans(await nms.plans.admin.list());
    } catch (err) {
      const e = shownError(err);
      setError(e);
      if (e.status === 401) {
        sessionStorage.removeItem(TOKEN_KEY);
        setToken("");
      }
    }
  }
  if (admin && plans === null && error === null) void reload();

  async function save() {
    if (!admin) return;
    setPending(true);
    setSaveError(null);
    try {
      const { id, ...rest } = bodyOf(draft);
      const saved = editing ? await admin.plans.admin.update(editing, rest) : await admin.plans.admin.create({ id, ...rest });
      setNotice(editing ? `${saved.name} saved: every tenant on it has the new limits within seconds.` : `${saved.name} created.`);
      setEditing(null);
      setDraft(emptyDraft());
      await reload();
    } catch (err) {
      setSaveError(shownError(err));
    } finally {
      setPending(false);
    }
  }

  const details = saveError?.details;
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });

  return (
    <>
      <PageHeader title="Plans (operator)" />
      <p class="lead">The service's plans and their limits, for the operator: these calls use the admin token, not your session. An empty limit means no limit.</p>
      {!admin ? (
        <form
          class="filters"
          onSubmit={(e) => {
            e.preventDefault();
            sessionStorage.setItem(TOKEN_KEY, typed.trim());
            setPlans(null);
            setError(null);
            setToken(typed.trim());
          }}
        >
          <Field id="admin-token" label="Admin token" hint="ADMIN_TOKEN of this service; kept in this browser tab only">
            <input id="admin-token" type="password" autoComplete="off" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={!typed.trim()}>
            Use token
          </button>
        </form>
      ) : null}
      {error ? <ErrorNotice error={error} title="Plans not loaded" onRetry={admin ? () => reload() : undefined} /> : null}
      <p class="form-status" role="status">
        {notice}
      </p>
      {admin && plans === null && !error ? <Loading label="Loading plans" /> : null}
      {admin && plans ? (
        <>
          <table class="plans">
            <thead>
              <tr>
                <th scope="col">Plan</th>
                <th scope="col">Price</th>
                <th scope="col">Notifications</th>
                <th scope="col">Requests / min</th>
                <th scope="col">Stripe price</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {plans.map((p) => (
                <tr key={p.id}>
                  <th scope="row">
                    {p.name} <span class="muted">{p.id}</span> {p.default ? <span class="badge">default</span> : null}
                  </th>
                  <td>{price(p)}</td>
                  <td>{count(p.limits.notifications_per_month)}</td>
                  <td>{count(p.limits.api_requests_per_minute, "default")}</td>
                  <td>{p.gateway_price_id ?? <span class="muted">—</span>}</td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => {
                        setEditing(p.id);
                        setDraft(draftOf(p));
                        setSaveError(null);
                      }}
                    >
                      Edit {p.name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <form
            class="plan-form"
            aria-labelledby="plan-form-title"
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            <h2 id="plan-form-title">{editing ? `Change ${editing}` : "New plan"}</h2>
            <div class="form-grid">
              {editing ? null : (
                <Field id="plan-id" label="Id" hint="lowercase letters, digits, - and _" errors={fieldErrors(details, "id")}>
                  <input id="plan-id" value={draft.id} onInput={(e) => set({ id: e.currentTarget.value })} />
                </Field>
              )}
              <Field id="plan-name" label="Name" errors={fieldErrors(details, "name")}>
                <input id="plan-name" value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
              </Field>
              <Field id="plan-price" label="Price in cents" errors={fieldErrors(details, "price_cents")}>
                <input id="plan-price" inputMode="numeric" value={draft.price} onInput={(e) => set({ price: e.currentTarget.value })} />
              </Field>
              <Field id="plan-currency" label="Currency" errors={fieldErrors(details, "currency")}>
                <input id="plan-currency" value={draft.currency} onInput={(e) => set({ currency: e.currentTarget.value })} />
              </Field>
              <Field id="plan-interval" label="Billed every">
                <Choice id="plan-interval" value={draft.interval} choices={["month", "year"] as const} onChange={(v) => set({ interval: v! })} />
              </Field>
              <Field id="plan-gateway-price" label="Stripe price id" hint="price_...; needed to sell a paid plan through Stripe" errors={fieldErrors(details, "gateway_price_id")}>
                <input id="plan-gateway-price" value={draft.gatewayPriceId} onInput={(e) => set({ gatewayPriceId: e.currentTarget.value })} />
              </Field>
              {LIMITS.map(([k, label]) => (
                <Field key={k} id={`plan-limit-${k}`} label={label} errors={fieldErrors(details, `limits.${k}`)}>
                  <input id={`plan-limit-${k}`} inputMode="numeric" placeholder="no limit" value={draft.limits[k]} onInput={(e) => set({ limits: { ...draft.limits, [k]: e.currentTarget.value } })} />
                </Field>
              ))}
            </div>
            <button type="submit" disabled={pending}>
              {editing ? "Save plan" : "Create plan"}
            </button>
            {editing ? (
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  setEditing(null);
                  setDraft(emptyDraft());
                  setSaveError(null);
                }}
              >
                Stop editing
              </button>
            ) : null}
          </form>
          {saveError ? <ErrorNotice error={saveError} title="Plan not saved" /> : null}
          <button
            type="button"
            class="secondary"
            onClick={() => {
              sessionStorage.removeItem(TOKEN_KEY);
              setToken("");
              setPlans(null);
            }}
          >
            Forget the admin token
          </button>
        </>
      ) : null}
    </>
  );
}
