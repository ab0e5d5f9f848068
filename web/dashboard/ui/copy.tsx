// Copying a value (an API key shown once, the inbox secret): a button using the clipboard, and
// the value itself in a read-only field a person can select when the clipboard is refused.
import { useRef, useState } from "preact/hooks";

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "refused">("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("refused");
    }
  };
  return (
    <span class="copy">
      <button type="button" class="secondary" onClick={copy} aria-label={label}>
        Copy
      </button>
      <span class="copy-status" role="status">
        {state === "copied" ? "Copied" : state === "refused" ? "The browser refused the clipboard: select the value and copy it" : ""}
      </span>
    </span>
  );
}

/** A value shown in full once (a new API key): selected on focus, with its copy button. */
export function SecretValue({ id, label, value }: { id: string; label: string; value: string }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <div class="secret-value">
      <label for={id}>{label}</label>
      <div class="secret-row">
        <input id={id} ref={input} type="text" readOnly value={value} spellcheck={false} onFocus={() => input.current?.select()} />
        <CopyButton text={value} label={`Copy the ${label}`} />
      </div>
    </div>
  );
}
