// The notifications table of the activity feed and of a subscriber's page: recipient (the link to the
// notification), channel, status, template, the workflow run that sent it, when.
import type { NotificationListItem } from "../../../client";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { TableHead } from "../ui/table-head";

export function NotificationTable({ items, caption = "Notifications, newest first" }: { items: NotificationListItem[]; caption?: string }) {
  return (
    <div class="table-scroll">
      <table class="notifications">
        <caption class="visually-hidden">{caption}</caption>
        <TableHead columns={["Recipient", "Channel", "Status", "Template", "Workflow", "Created"]} />
        <tbody>
          {items.map((n) => (
            <tr key={n.id} data-id={n.id}>
              <td class="recipient">
                <Link to={`/notifications/${n.id}`}>{n.recipient ?? "(erased)"}</Link>
              </td>
              <td>{n.channel}</td>
              <td>
                <Badge value={n.status} />
                {n.status === "scheduled" && n.scheduled_for ? (
                  <>
                    {" "}
                    <span class="muted">
                      until <Time iso={n.scheduled_for} />
                    </span>
                  </>
                ) : null}
              </td>
              <td>{n.template_id ?? <span class="muted">none</span>}</td>
              <td>
                {n.workflow_step ? (
                  <Link to={`/workflow-runs/${n.workflow_step.run_id}`}>step {n.workflow_step.step + 1}</Link>
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
              <td>
                <Time iso={n.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
