// Editing a subscriber (PUT /v1/subscribers/:id): the form filled with the record, then back to its page.
import type { SubscriberCreateParams } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { SubscriberForm } from "./subscriber-form";

export function SubscriberEditPage({ params }: PageProps) {
  const { api, go } = useDashboard();
  const load = useLoad(() => api.subscribers.retrieve(params.id!), [params.id]);
  const save = useAction(async (body: SubscriberCreateParams) => {
    const { external_id: _kept, ...fields } = body;
    const s = await api.subscribers.update(params.id!, fields);
    go(`/subscribers/${s.id}`, {}, { notice: `Subscriber ${s.external_id} was saved.` });
  });
  return (
    <>
      <PageHeader title="Edit subscriber">
        <Link to={`/subscribers/${params.id}`}>Back to the subscriber</Link>
      </PageHeader>
      <Async load={load} label="Loading the subscriber" rows={6}>
        {(s) => <SubscriberForm subscriber={s} submitLabel="Save" pendingLabel="Saving…" pending={save.pending} error={save.error} onSubmit={(p) => save.run(p)} />}
      </Async>
    </>
  );
}
