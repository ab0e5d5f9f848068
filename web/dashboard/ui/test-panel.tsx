// The "Test" section of a page that can send something on request (a channel's test notification, a
// webhook's test event): its form, the pending button, and the outcome or the API's refusal.
import type { ComponentChildren } from "preact";
import { ErrorNotice } from "./states";
import type { Action } from "./use-load";

interface Props<R extends { success: boolean }> {
  /** The send; its error is shown as "The test was refused". */
  test: Action<[]>;
  /** The last outcome, null before the first one or while the next runs. */
  result: R | null;
  submitLabel: string;
  pendingLabel: string;
  /** The outcome's text (the paragraph is green or red by `result.success`). */
  describe(result: R): ComponentChildren;
  class?: string;
  /** The form's fields. */
  children: ComponentChildren;
}

export function TestPanel<R extends { success: boolean }>({ test, result, submitLabel, pendingLabel, describe, class: className, children }: Props<R>) {
  return (
    <section aria-labelledby="test-title" class={className}>
      <h2 id="test-title">Test</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          test.run();
        }}
      >
        {children}
        <button type="submit" disabled={test.pending}>
          {test.pending ? pendingLabel : submitLabel}
        </button>
      </form>
      <div aria-live="polite">
        {test.error ? <ErrorNotice error={test.error} title="The test was refused" /> : null}
        {result ? <p class={`notice ${result.success ? "success-notice" : "error-notice"} test-result`}>{describe(result)}</p> : null}
      </div>
    </section>
  );
}
