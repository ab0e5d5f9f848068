// The process kinds of the Procfile (besides `api`): each runs its stream actors (actors/index.ts)
// and its periodic jobs (jobs/index.ts); `npm start` runs every kind in one process.
import { actorKinds, startActorHosts } from "../actors";
import { jobKinds, startJobs } from "../jobs";

export function processKinds(): string[] {
  return [...new Set([...actorKinds(), ...jobKinds()])];
}

/** Starts the actors, then the jobs, of the named kinds; stop() stops the jobs first. */
export async function startProcessKinds(names: string[]): Promise<{ stop(): Promise<void> }> {
  const actors = await startActorHosts(names);
  const jobs = await startJobs(names);
  return {
    async stop() {
      await jobs.stop();
      await actors.stop();
    },
  };
}
