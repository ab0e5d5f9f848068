// A new workflow (POST /v1/workflows) or a new version of the active one (PUT /v1/workflows/:id):
// slug, name and the step editor; the API's field messages shown where they belong.
import { useState } from "preact/hooks";
import type { Workflow } from "../../../client";
import { useDashboard } from "../app/context";
import type { PageProps } from "../app/section";
import { describedBy, Field, fieldErrors } from "../ui/field";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { Async, Empty, ErrorNotice } from "../ui/states";
import { useAction, useLoad } from "../ui/use-load";
import { StepEditor } from "./step-editor";
import { draftOf, newStep, paramsOf, type StepDraft } from "./steps";

export function WorkflowEditorPage({ params }: PageProps) {
  const { api } = useDashboard();
  const id = params.id;
  const load = useLoad(async () => {
    const [workflow, templates] = await Promise.all([id ? api.workflows.retrieve(id) : Promise.resolve(null), api.templates.list({ limit: 100 }).toArray(500)]);
    return { workflow, templates: templates.map((t) => ({ slug: t.slug, channel: t.channel })) };
  }, [id]);
  return (
    <>
      <PageHeader title={id ? "Edit workflow" : "New workflow"}>
        {id ? <Link to={`/workflows/${id}`}>Back to the workflow</Link> : <Link to="/workflows">All workflows</Link>}
      </PageHeader>
      <Async load={load} label="Loading the workflow" rows={6}>
        {({ workflow, templates }) =>
          workflow && !workflow.active ? (
            <Empty title={`Version ${workflow.version} is not active`}>
              Only the active version can be changed. <Link to="/workflows">Find the active version</Link>.
            </Empty>
          ) : (
            <WorkflowForm workflow={workflow} templates={templates} />
          )
        }
      </Async>
    </>
  );
}

interface FormProps {
  workflow: Workflow | null;
  templates: { slug: string; channel: string }[];
}

function WorkflowForm({ workflow, templates }: FormProps) {
  const { api, go } = useDashboard();
  const [slug, setSlug] = useState(workflow?.slug ?? "");
  const [name, setName] = useState(workflow?.name ?? "");
  const [steps, setSteps] = useState<StepDraft[]>(() => (workflow ? workflow.steps.map(draftOf) : [newStep("send")]));

  const save = useAction(async () => {
    const body = { name, steps: steps.map(paramsOf) };
    if (workflow) {
      const next = await api.workflows.update(workflow.id, { ...body, ...(slug !== workflow.slug ? { slug } : {}) });
      go(`/workflows/${next.id}`, {}, { notice: `Saved as version ${next.version}: new runs use it; runs already started keep version ${workflow.version}.` });
    } else {
      const created = await api.workflows.create({ slug, ...body });
      go(`/workflows/${created.id}`, {}, { replace: true, notice: "Workflow created (version 1, active)." });
    }
  });
  const details = save.error?.details;
  const slugErrors = fieldErrors(details, "slug");
  const nameErrors = fieldErrors(details, "name");
  return (
    <form
      class="stack workflow-form"
      aria-label="Workflow"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.run();
      }}
    >
      <div class="field-row">
        <Field id="workflow-slug" label="Slug" errors={slugErrors} hint={workflow ? "Changing it moves the trigger URL." : "Lowercase letters, digits, - and _: the trigger URL names it."}>
          <input id="workflow-slug" value={slug} required spellcheck={false} onInput={(e) => setSlug(e.currentTarget.value)} aria-invalid={slugErrors ? "true" : undefined} aria-describedby={describedBy("workflow-slug", true, slugErrors)} />
        </Field>
        <Field id="workflow-name" label="Name" errors={nameErrors}>
          <input id="workflow-name" value={name} required onInput={(e) => setName(e.currentTarget.value)} aria-invalid={nameErrors ? "true" : undefined} aria-describedby={describedBy("workflow-name", false, nameErrors)} />
        </Field>
      </div>
      <StepEditor steps={steps} onChange={setSteps} details={details} templates={templates} />
      {save.error ? <ErrorNotice error={save.error} title={workflow ? "No new version saved" : "Not created"} /> : null}
      <div class="button-row">
        <button type="submit" disabled={save.pending}>
          {save.pending ? "Saving…" : workflow ? `Save as version ${workflow.version + 1}` : "Create workflow"}
        </button>
        {workflow ? <Link to={`/workflows/${workflow.id}`}>Discard changes</Link> : null}
      </div>
    </form>
  );
}
