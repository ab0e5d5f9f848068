// Subprocess entry point for broadcast tests (issue 22): one runtime host for the broadcast actor on
// the test's Redis prefix with a short lease (BROADCAST_PAGE_SIZE sets its page). Prints "ready <id>"; stops on SIGTERM.
import { broadcast } from "../../actors/broadcast";
import { getRuntime } from "../../store/runtime-handle";
import { serveUntilSigterm } from "./spawn-ready";

const hostId = process.env.BC_HOST_ID ?? `bc-worker-${process.pid}`;
const runtime = getRuntime();
const host = runtime.startHost({ actors: [broadcast], hostId, leaseMs: Number(process.env.BC_LEASE_MS ?? 1500), blockMs: 100, timerPollMs: 20 });

await serveUntilSigterm(hostId, host.ready, () => host.stop().then(() => runtime.close()));
