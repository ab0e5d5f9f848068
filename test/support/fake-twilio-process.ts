// The Twilio fake (fake-twilio.ts) as a process of its own, for scripts/chaos.ts (which, as a script,
// may not import test code): answers after a random latency, a share of them 503, and reports what
// it received on a second port. Prints "fake-twilio <url> report <report url>" once listening.
//   bun test/support/fake-twilio-process.ts [--latency 20:400] [--errors 0.05] [--sid AC...] [--token ...]
import { start } from "./fake-twilio";
import type { ScriptedResponse } from "./fake-http";

const args = new Map<string, string>();
for (let i = 2; i + 1 < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1]!);
const [minMs, maxMs] = (args.get("latency") ?? "20:400").split(":").map(Number) as [number, number];
const errorRate = Number(args.get("errors") ?? 0.05);

const fake = await start({ accountSid: args.get("sid"), authToken: args.get("token") });
// One answer per request, drawn in advance (the fake takes the next scripted answer per request).
const answers: ScriptedResponse[] = [];
for (let i = 0; i < 200_000; i++) {
  if (Math.random() < errorRate) answers.push({ kind: "server_error", status: 503 });
  else answers.push({ kind: "hang", ms: Math.round(minMs + Math.random() * (maxMs - minMs)) });
}
for (let i = 0; i < answers.length; i += 10_000) fake.script(...answers.slice(i, i + 10_000));

const report = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch() {
    // [Body, 1 when Twilio accepted it (201) else 0] per send request, in arrival order
    const accepted = new Set(fake.messages.map((m) => m.request));
    const sends = fake.requests.filter((r) => r.kind === "send").map((r) => [r.form?.Body ?? "", accepted.has(r) ? 1 : 0]);
    return Response.json(sends);
  },
});

console.log(`fake-twilio ${fake.url} report http://127.0.0.1:${report.port}/`);
process.on("SIGTERM", async () => {
  report.stop(true);
  await fake.stop();
  process.exit(0);
});
