// A new subscriber (POST /v1/subscribers): the form, then the subscriber's page. The API upserts on
// external_id, so an existing external id updates that subscriber; the page says which happened.
import { useDashboard } from "../app/context";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { useAction } from "../ui/use-load";
import { SubscriberForm } from "./subscriber-form";
import type { SubscriberCreateParams } from "../../../client";

export function SubscriberNewPage() {
  const { api, go } = useDashboard();
  const save = useAction(async (params: SubscriberCreateParams) => {
    const s = await api.subscribers.create(params);
    const updated = s.created_at !== s.updated_at;
    go(`/subscribers/${s.id}`, {}, { notice: updated ? `Subscriber ${s.external_id} existed and was updated.` : `Subscriber ${s.external_id} was created.` });
  });
  return (
    <>
      <PageHeader title="New subscriber">
        <Link to="/subscribers">All subscribers</Link>
      </PageHeader>
      <SubscriberForm submitLabel="Create subscriber" pendingLabel="Creating…" pending={save.pending} error={save.error} onSubmit={(p) => save.run(p)} />
    </>
  );
}
