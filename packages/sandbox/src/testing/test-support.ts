import { readdirSync } from "node:fs";
import { type HostProcess, listProcesses } from "@distdebug/test-utils";

export { childProcesses, type HostProcess, listProcesses, waitFor } from "@distdebug/test-utils";

/** Processes of one uid. */
export function processesOfUid(uid: number): HostProcess[] {
  return listProcesses().filter((process) => process.uid === uid);
}

/** Processes inside one pid namespace. */
export function processesInPidNamespace(namespace: number): HostProcess[] {
  return listProcesses().filter((process) => process.pidNamespace === namespace);
}

/** Open file descriptors of this process. */
export function openFdCount(): number {
  return readdirSync("/proc/self/fd").length;
}

/** True when this process runs as root (the privileged path, as in CI). */
export const isRoot = process.getuid?.() === 0;
