// A run's steps in order: what each step of its version does beside what happened (type, status,
// channel, the notification it created and where that notification is now, when a delay resumes,
// the error), and the steps still to come.
import type { WorkflowRun, WorkflowStep, WorkflowStepResult } from "../../../client";
import { Badge, Time } from "../ui/format";
import { Link } from "../ui/link";
import { TableHead } from "../ui/table-head";
import { stepSummary } from "./steps";

/** What the table says of a step without a result: next, waiting, or never run. */
function notRun(run: WorkflowRun, index: number): string {
  if (run.status !== "running") return "not run";
  return index === run.current_step ? "next" : "waiting";
}

/** A delay's result is recorded when it starts; it is over once the run moved past it. */
function statusOf(run: WorkflowRun, r: WorkflowStepResult): string {
  if (r.status) return r.status;
  if (r.type === "delay") return run.current_step > r.step || run.status === "completed" ? "completed" : run.status === "running" ? "waiting" : run.status;
  return "done";
}

export function StepResults({ run, steps }: { run: WorkflowRun; steps: WorkflowStep[] | null }) {
  const count = Math.max(steps?.length ?? 0, ...run.step_results.map((r) => r.step + 1));
  const rows = Array.from({ length: count }, (_, i) => ({ i, def: steps?.[i], result: run.step_results.find((r) => r.step === i) }));
  return (
    <table class="step-results">
      <caption class="visually-hidden">Steps of this run, in order</caption>
      <TableHead columns={["#", "Step", "Status", "Channel", "Notification", "When", "Error"]} />
      <tbody>
        {rows.map(({ i, def, result }) => (
          <tr key={i} data-step={i} class={result ? undefined : "muted"}>
            <td>{i + 1}</td>
            <td>
              <Badge value={result?.type ?? def?.type ?? "muted"}>{result?.type ?? def?.type ?? "?"}</Badge>
              {def ? <div class="hint">{stepSummary(def)}</div> : null}
            </td>
            <td>{result ? <StepStatus run={run} result={result} /> : <span class="muted">{notRun(run, i)}</span>}</td>
            <td>{result?.channel ?? <span class="muted">—</span>}</td>
            <td>
              {result?.notification_id ? (
                <Link to={`/notifications/${result.notification_id}`}>Notification of step {i + 1}</Link>
              ) : result?.type === "digest" ? (
                <DigestLinks run={run} result={result} />
              ) : (
                <span class="muted">—</span>
              )}
              {result?.attempts?.length ? <FallbackAttempts attempts={result.attempts} /> : null}
            </td>
            <td>
              {result?.scheduled_at ? (
                <>
                  {result.until ? `until ${result.until} ${result.timezone ?? ""}` : result.duration} · resumes <Time iso={result.scheduled_at} />
                </>
              ) : result?.window_started_at && result.window_ended_at ? (
                <>
                  window <Time iso={result.window_started_at} /> to <Time iso={result.window_ended_at} />
                </>
              ) : result?.reason ? (
                <span class="muted">{REASONS[result.reason] ?? result.reason}</span>
              ) : (
                <span class="muted">—</span>
              )}
            </td>
            <td>
              {result?.error ? (
                <span class="field-error">
                  <code>{result.error.code}</code> {result.error.message}
                </span>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const REASONS: Record<string, string> = {
  previous_step_delivered: "skipped: the previous send was delivered",
  condition_false: "skipped: its condition was false",
};

/** Members shown by name on a leader's row; the rest are counted. */
const MEMBERS_SHOWN = 20;

/** A digest's leader lists the runs merged into it; a merged run links to its leader. */
function DigestLinks({ run, result }: { run: WorkflowRun; result: WorkflowStepResult }) {
  if (result.status === "merged" && result.digest_run_id) {
    return (
      <span class="digest-link">
        Merged into the digest of <Link to={`/workflow-runs/${result.digest_run_id}`}>run …{result.digest_run_id.slice(-8)}</Link>
      </span>
    );
  }
  if (result.status === "completed" && result.run_ids) {
    const others = result.run_ids.filter((id) => id !== run.id);
    return (
      <div class="digest-members">
        Leader of a digest of {result.event_count ?? result.run_ids.length} events
        {others.length ? (
          <ol aria-label="Runs merged into this digest">
            {others.slice(0, MEMBERS_SHOWN).map((id) => (
              <li key={id}>
                <Link to={`/workflow-runs/${id}`}>run …{id.slice(-8)}</Link>
              </li>
            ))}
            {others.length > MEMBERS_SHOWN ? <li class="muted">and {others.length - MEMBERS_SHOWN} more</li> : null}
          </ol>
        ) : null}
      </div>
    );
  }
  return <span class="muted">—</span>;
}

/**
 * A step that created a notification shows where that notification is now (the step itself only
 * says it `enqueued` it, which stays true when the notification later fails).
 */
function StepStatus({ run, result }: { run: WorkflowRun; result: WorkflowStepResult }) {
  const now = result.notification_status;
  if (!now) return <Badge value={statusOf(run, result)} />;
  return (
    <>
      <Badge value={now}>{now}</Badge>
      <div class="hint step-own-status">
        step {statusOf(run, result)}
        {result.status === "enqueued" ? " it" : ""}; the notification is {now}
      </div>
    </>
  );
}

function FallbackAttempts({ attempts }: { attempts: NonNullable<WorkflowStepResult["attempts"]> }) {
  return (
    <ol class="fallback-attempts" aria-label="Channels tried">
      {attempts.map((a) => (
        <li key={a.channel}>
          {a.channel} <Badge value={a.notification_status ?? a.status} />{" "}
          {a.notification_id ? <Link to={`/notifications/${a.notification_id}`}>notification</Link> : null}
          {a.error ? <span class="field-error"> {a.error.message}</span> : null}
        </li>
      ))}
    </ol>
  );
}
