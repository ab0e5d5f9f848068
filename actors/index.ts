// The actor kinds this service runs and how a process starts a host for some of them.
// Each actor file registers here; scripts/start.ts and the Procfile name kinds from this list.
export interface RunningActors {
  stop(): Promise<void>;
}

const kinds: string[] = [];

export function actorKinds(): string[] {
  return [...kinds];
}

export async function startActors(_names: string[]): Promise<RunningActors> {
  return { async stop() {} };
}
