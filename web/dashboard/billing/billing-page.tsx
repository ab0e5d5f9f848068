// Billing (/billing): the subscription (plan, status, period), the period's usage, the plans to
// change to (an upgrade now, a downgrade at the period end) and cancellation. Owners change; others read.
import { useState } from "preact/hooks";
import type { Plan, Subscription } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { Badge, Time } from "../ui/format";
import { PageHeader } from "../ui/page-header";
import { Async, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { SUBSCRIPTION_STATUS_LABELS } from "../vocabulary";
import { count, monthly, price } from "./money";
import { NotificationsMeter, ResourceUsage } from "./usage";

const LIVE = new Set(["trialing", "active", "past_due"]);

function graceEnd(sub: Subscription): string | null {
  if (!sub.past_due_since) return null;
  return new Date(new Date(sub.past_due_since).getTime() + sub.grace_period_days * 86_400_000).toISOString();
}

function StatusNotes({ sub, plans }: { sub: Subscription; plans: Plan[] }) {
  const name = (id: string | null) => plans.find((p) => p.id === id)?.name ?? id;
  return (
    <>
      {sub.pending_plan_id ? (
        <p class="notice">
          Changes to <strong>{name(sub.pending_plan_id)}</strong> on <Time iso={sub.current_period_end} />; until then the {name(sub.plan_id)} plan applies.
        </p>
      ) : null}
      {sub.cancel_at_period_end ? (
        <p class="notice">
          Ends on <Time iso={sub.current_period_end} />; then the default plan's limits apply.
        </p>
      ) : null}
      {sub.status === "past_due" ? (
        <div class="notice error-notice" role="alert">
          <p class="notice-title">A payment failed</p>
          <p>
            The plan holds until <Time iso={graceEnd(sub)} />; unpaid by then it expires and the default plan's limits apply.
            {sub.payment_url ? (
              <>
                {" "}
                <a href={sub.payment_url} target="_blank" rel="noopener">
                  Pay the open invoice
                </a>
              </>
            ) : null}
          </p>
        </div>
      ) : null}
      {sub.status === "cancelled" || sub.status === "expired" ? (
        <p class="notice">
          The subscription to {name(sub.plan_id)} is {SUBSCRIPTION_STATUS_LABELS[sub.status].toLowerCase()}: the {name(sub.effective_plan_id)} plan applies.
        </p>
      ) : null}
    </>
  );
}

function CancelButton({ onCancel, periodEnd, disabled }: { onCancel: (reason: string, atPeriodEnd: boolean) => void; periodEnd: string; disabled: boolean }) {
  const [reason, setReason] = useState("");
  const [now, setNow] = useState(false);
  return (
    <ConfirmButton label="Cancel subscription" title="Cancel the subscription?" confirmLabel="Cancel subscription" dismissLabel="Keep it" disabled={disabled} onConfirm={() => onCancel(reason.trim(), !now)}>
      <p>
        The plan holds until <Time iso={periodEnd} />, then the default plan's limits apply.
      </p>
      <div class="field">
        <label for="cancel-reason">Reason (kept in the audit log)</label>
        <input id="cancel-reason" value={reason} maxLength={500} onInput={(e) => setReason(e.currentTarget.value)} />
      </div>
      <label class="checkbox">
        <input type="checkbox" checked={now} onChange={(e) => setNow(e.currentTarget.checked)} /> End it now instead
      </label>
    </ConfirmButton>
  );
}

export function BillingPage(_: PageProps) {
  const { api, me, link } = useDashboard();
  const load = useLoad(async () => {
    const [sub, plans] = await Promise.all([api.subscription.retrieve(), api.plans.list()]);
    return { sub, plans };
  }, []);
  const [notice, setNotice] = useState<string | null>(null);
  const owner = me.role === "owner";
  const change = useAction(async (plan: Plan) => {
    const sub = await api.subscription.change(plan.id);
    setNotice(sub.pending_plan_id === plan.id ? `${plan.name} applies from ${new Date(sub.current_period_end).toLocaleDateString()}.` : `You are on ${plan.name} now.`);
    load.reload();
  });
  const cancel = useAction(async (reason: string, atPeriodEnd: boolean) => {
    await api.subscription.cancel({ ...(reason ? { reason } : {}), at_period_end: atPeriodEnd });
    setNotice(atPeriodEnd ? "The subscription ends at the end of the period." : "The subscription was cancelled.");
    load.reload();
  });

  return (
    <>
      <PageHeader title="Billing" />
      <p class="lead">
        Your plan, what this period used and the plans to move to. Only production counts; the same in both environments. {owner ? null : "Only owners change the subscription."}
      </p>
      <p class="form-status" role="status">
        {notice}
      </p>
      {change.error ? <ErrorNotice error={change.error} title="Plan unchanged" /> : null}
      {cancel.error ? <ErrorNotice error={cancel.error} title="Not cancelled" /> : null}
      <Async load={load} label="Loading the subscription" rows={4}>
        {({ sub, plans }) => {
          const current = plans.find((p) => p.id === sub.effective_plan_id);
          const live = LIVE.has(sub.status) && sub.id !== null;
          return (
            <>
              <section aria-labelledby="plan-title" class="panel">
                <h2 id="plan-title">
                  {current?.name ?? sub.effective_plan_id} <Badge value={sub.status === "past_due" ? "failed" : sub.status}>{SUBSCRIPTION_STATUS_LABELS[sub.status]}</Badge>
                </h2>
                <dl class="facts">
                  <dt>Price</dt>
                  <dd>{current ? price(current) : "—"}</dd>
                  <dt>Period</dt>
                  <dd>
                    <Time iso={sub.current_period_start} /> – <Time iso={sub.current_period_end} />
                  </dd>
                  <dt>Billed</dt>
                  <dd>{sub.gateway === "stripe" ? "by card through Stripe" : "by the operator (manual)"}</dd>
                </dl>
                <StatusNotes sub={sub} plans={plans} />
                <NotificationsMeter sub={sub} />
                <ResourceUsage sub={sub} />
                {owner && live && !sub.cancel_at_period_end ? <CancelButton periodEnd={sub.current_period_end} disabled={cancel.pending} onCancel={(r, end) => cancel.run(r, end)} /> : null}
              </section>
              <section aria-labelledby="plans-title">
                <h2 id="plans-title">Plans</h2>
                <table class="plans">
                  <thead>
                    <tr>
                      <th scope="col">Plan</th>
                      <th scope="col">Price</th>
                      <th scope="col">Notifications / period</th>
                      <th scope="col">Webhooks</th>
                      <th scope="col">Team</th>
                      <th scope="col">
                        <span class="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {plans.map((p) => {
                      const isCurrent = live && p.id === sub.plan_id && !sub.pending_plan_id;
                      const base = live ? plans.find((x) => x.id === sub.plan_id) : undefined;
                      const kind = !base ? "Subscribe" : monthly(p) < monthly(base) ? "Downgrade" : "Upgrade";
                      return (
                        <tr key={p.id}>
                          <th scope="row">
                            {p.name} <span class="muted">{p.id}</span>
                          </th>
                          <td>{price(p)}</td>
                          <td>{count(p.limits.notifications_per_month)}</td>
                          <td>{count(p.limits.webhooks)}</td>
                          <td>{count(p.limits.team_members)}</td>
                          <td class="actions">
                            {isCurrent ? (
                              <span class="muted">Current plan</span>
                            ) : owner ? (
                              <ConfirmButton label={`${kind} to ${p.name}`} title={`${kind} to ${p.name}?`} confirmLabel={kind} tone="secondary" disabled={change.pending} onConfirm={() => change.run(p)}>
                                <p>
                                  {kind === "Downgrade" ? (
                                    <>
                                      Applies on <Time iso={sub.current_period_end} />; the current plan holds until then.
                                    </>
                                  ) : (
                                    "Applies now."
                                  )}{" "}
                                  {p.price_cents > 0 ? `${price(p)}.` : null}
                                </p>
                              </ConfirmButton>
                            ) : null}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
                <p class="muted">
                  Operators manage the plans on <a href={link("/billing/plans")}>the operator's plans page</a> (admin token).
                </p>
              </section>
            </>
          );
        }}
      </Async>
    </>
  );
}
