// A button for an action that cannot be undone (erase, revoke, remove): it opens a modal dialog
// naming the consequence; Cancel has the focus, Escape closes, focus returns to the button.
import type { ComponentChildren } from "preact";
import { useId, useRef } from "preact/hooks";

interface ConfirmProps {
  label: string;
  /** The dialog's heading, e.g. "Erase ana@example.com?" */
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  /** "danger" (default) for what destroys, "secondary" for a change such as a rotation. */
  tone?: "danger" | "secondary";
  /** The button that closes the dialog doing nothing (default "Cancel"; "Keep it running" when the action itself is a cancel). */
  dismissLabel?: string;
}

export function ConfirmButton({ label, title, children, confirmLabel, onConfirm, disabled, tone = "danger", dismissLabel = "Cancel" }: ConfirmProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  return (
    <>
      <button type="button" class={tone} disabled={disabled} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-title`} aria-describedby={`${id}-body`} class="confirm">
        <h2 id={`${id}-title`}>{title}</h2>
        <div id={`${id}-body`}>{children}</div>
        <div class="dialog-actions">
          <button type="button" class="secondary" autofocus onClick={() => dialog.current?.close()}>
            {dismissLabel}
          </button>
          <button
            type="button"
            class={tone === "danger" ? "danger" : ""}
            onClick={() => {
              dialog.current?.close();
              onConfirm();
            }}
          >
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}
