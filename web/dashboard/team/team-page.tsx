// Team members (/v1/team/members): everyone who can sign in to this account, their role
// (owner, admin, member) changed in place, invitations by email, removal behind a confirmation.
import { useState } from "preact/hooks";
import type { TeamMember } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { ConfirmButton } from "../ui/confirm";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { Time } from "../ui/format";
import { PageHeader } from "../ui/page-header";
import { Async, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { Choice } from "../ui/choice";
import { TableHead } from "../ui/table-head";

const ROLES: TeamMember["role"][] = ["owner", "admin", "member"];

export function TeamPage(_: PageProps) {
  const { api, me } = useDashboard();
  const load = useLoad(() => api.teamMembers.list(), []);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<TeamMember["role"]>("member");
  const [notice, setNotice] = useState<string | null>(null);
  const manages = me.role !== "member";

  const invite = useAction(async () => {
    const m = await api.teamMembers.invite({ email: email.trim(), role });
    setNotice(`Invited ${m.email}: a sign-in link is on its way.`);
    setEmail("");
    load.reload();
  });
  const change = useAction(async (m: TeamMember, next: TeamMember["role"]) => {
    const updated = await api.teamMembers.update(m.id, { role: next });
    setNotice(`${updated.email} is now ${updated.role}.`);
    load.reload();
  });
  const remove = useAction(async (m: TeamMember) => {
    await api.teamMembers.del(m.id);
    setNotice(`${m.email} was removed.`);
    load.reload();
  });
  const errors = invite.error?.details;

  return (
    <>
      <PageHeader title="Team" />
      <p class="lead">Owners and admins invite, change roles and remove; only owners touch the owner role. Members see the team. The team is the same in both environments.</p>
      <p class="form-status" role="status">
        {notice}
      </p>
      {change.error ? <ErrorNotice error={change.error} title="Role unchanged" /> : null}
      {remove.error ? <ErrorNotice error={remove.error} title="Not removed" /> : null}
      <Async load={load} label="Loading the team" rows={3}>
        {(members) => (
          <table class="team">
            <TableHead columns={["Email", "Name", "Role", "Last sign-in", { label: "Actions", hidden: true }]} />
            <tbody>
              {members.map((m) => (
                <tr key={m.id}>
                  <td>
                    {m.email}
                    {m.id === me.id ? <span class="muted"> (you)</span> : null}
                  </td>
                  <td>{m.name ?? <span class="muted">—</span>}</td>
                  <td>
                    {manages ? (
                      <Choice aria-label={`Role of ${m.email}`} value={m.role} choices={ROLES} disabled={change.pending} onChange={(v) => change.run(m, v!)} />
                    ) : (
                      m.role
                    )}
                  </td>
                  <td>
                    <Time iso={m.last_login_at} fallback="never" />
                  </td>
                  <td class="actions">
                    {manages && m.id !== me.id ? (
                      <ConfirmButton label="Remove" title={`Remove ${m.email}?`} confirmLabel="Remove member" onConfirm={() => remove.run(m)} disabled={remove.pending}>
                        <p>They are signed out everywhere and can no longer sign in to this account.</p>
                      </ConfirmButton>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
      {manages ? (
        <form
          class="filters"
          aria-labelledby="invite-title"
          onSubmit={(e) => {
            e.preventDefault();
            invite.run();
          }}
        >
          <h2 id="invite-title" class="visually-hidden">
            Invite a member
          </h2>
          <Field id="invite-email" label="Invite by email" errors={fieldErrors(errors, "email")}>
            <input id="invite-email" type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} aria-describedby={describedBy("invite-email", false, fieldErrors(errors, "email"))} />
          </Field>
          <Field id="invite-role" label="Role">
            <Choice id="invite-role" value={role} choices={ROLES} onChange={(v) => setRole(v!)} />
          </Field>
          <button type="submit" disabled={invite.pending || !email.trim()}>
            Send invitation
          </button>
        </form>
      ) : null}
      {invite.error && !fieldErrors(errors, "email") ? <ErrorNotice error={invite.error} title="Not invited" /> : null}
    </>
  );
}
