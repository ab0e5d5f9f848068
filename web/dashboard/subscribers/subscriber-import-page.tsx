// Importing subscribers from a CSV file through the bulk import route (POST /v1/subscribers/import):
// the file is read in the browser, shown as a count and its columns, then sent in one call that
// writes all rows or none; a refused import names the failing row and field.
import { useState } from "preact/hooks";
import { NmsError, type SubscriberImportResult } from "../../../client";
import { shownError, type ShownError } from "../api";
import { useDashboard } from "../app/context";
import { Link } from "../ui/link";
import { PageHeader } from "../ui/page-header";
import { ErrorNotice } from "../ui/states";
import { useAction } from "../ui/use-load";
import { failingRow, IMPORT_LIMIT, readSubscribersCsv, RECORD_COLUMNS, type CsvRead } from "./csv-import";

export function SubscriberImportPage() {
  const { api } = useDashboard();
  const [file, setFile] = useState<{ name: string; read: CsvRead } | null>(null);
  const [result, setResult] = useState<SubscriberImportResult | null>(null);
  const [refused, setRefused] = useState<{ error: ShownError; row: { row: number; messages: string[] } | null } | null>(null);
  const send = useAction(async () => {
    if (!file?.read.ok) return;
    setResult(null);
    setRefused(null);
    try {
      setResult(await api.subscribers.import(file.read.subscribers));
    } catch (err) {
      if (!(err instanceof NmsError) || err.status !== 422) throw err;
      const index = (err.body as { error?: { index?: unknown } } | null)?.error?.index;
      setRefused({ error: shownError(err), row: failingRow(err.details, index) });
    }
  });

  const read = file?.read;
  return (
    <>
      <PageHeader title="Import subscribers">
        <Link to="/subscribers">All subscribers</Link>
      </PageHeader>
      <p class="lead">
        A CSV file whose first row names the columns: <code>external_id</code> (required), and any of{" "}
        {RECORD_COLUMNS.slice(1).map((c, i) => (
          <span key={c}>
            {i ? ", " : ""}
            <code>{c}</code>
          </span>
        ))}
        . Other columns become custom properties. An existing external id is updated. Up to {IMPORT_LIMIT.toLocaleString()} rows; they are imported
        all together or not at all.
      </p>
      <form
        class="stack"
        aria-label="Import a CSV file"
        onSubmit={(e) => {
          e.preventDefault();
          send.run();
        }}
      >
        <div class="field">
          <label for="import-file">CSV file</label>
          <input
            id="import-file"
            type="file"
            accept=".csv,text/csv"
            onChange={async (e) => {
              const f = e.currentTarget.files?.[0];
              setResult(null);
              setRefused(null);
              setFile(f ? { name: f.name, read: readSubscribersCsv(await f.text()) } : null);
            }}
          />
        </div>
        <div aria-live="polite" class="import-preview">
          {read && !read.ok ? (
            <p class="notice error-notice" role="alert">
              {file!.name} cannot be imported: {read.message}
            </p>
          ) : null}
          {read?.ok ? (
            <p class="notice">
              <strong>{read.subscribers.length}</strong> {read.subscribers.length === 1 ? "subscriber" : "subscribers"} in {file!.name}; columns{" "}
              {read.columns.map((c) => (
                <code key={c}>{c} </code>
              ))}
              {read.customColumns.length ? <>({read.customColumns.join(", ")} as custom properties)</> : null}
            </p>
          ) : null}
        </div>
        <div class="button-row">
          <button type="submit" disabled={!read?.ok || send.pending}>
            {send.pending ? "Importing…" : read?.ok ? `Import ${read.subscribers.length} subscribers` : "Import"}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {send.error ? <ErrorNotice error={send.error} title="Not imported" /> : null}
        {refused ? (
          <div class="notice error-notice import-refused" role="alert">
            <p class="notice-title">Nothing was imported{refused.row ? `: row ${refused.row.row} is refused` : ""}</p>
            {refused.row && read?.ok ? (
              <p class="import-refused-row">
                Row {refused.row.row} (external id <code>{read.subscribers[refused.row.row - 1]?.external_id || "empty"}</code>):{" "}
                {refused.row.messages.join("; ") || refused.error.message}
              </p>
            ) : (
              <p>{refused.error.message}</p>
            )}
            <p class="hint">Correct that row and import the file again: the import writes every row or none.</p>
          </div>
        ) : null}
        {result ? (
          <p class="notice success-notice import-done" role="status">
            Imported {result.imported} {result.imported === 1 ? "subscriber" : "subscribers"}. <Link to="/subscribers">See them</Link>
          </p>
        ) : null}
      </div>
    </>
  );
}
