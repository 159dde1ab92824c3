import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** One process as seen from the host's /proc. */
export interface HostProcess {
  pid: number;
  ppid: number;
  uid: number;
  /** The inode number of its pid namespace. */
  pidNamespace: number | undefined;
  command: string;
}

/** Lists the host's processes (test support: leak and kill checks from the host). */
export function listProcesses(): HostProcess[] {
  const processes: HostProcess[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, "utf8");
      if (/^State:\s+Z/m.test(status)) continue;
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      const command = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      let pidNamespace: number | undefined;
      try {
        pidNamespace = Number(/\[(\d+)\]/.exec(readlinkSync(`/proc/${name}/ns/pid`))?.[1]);
      } catch {
        pidNamespace = undefined;
      }
      processes.push({ pid: Number(name), ppid, uid, pidNamespace, command });
    } catch {
      // Gone while listing.
    }
  }
  return processes;
}

/** Direct children of this process. */
export function childProcesses(): HostProcess[] {
  return listProcesses().filter((entry) => entry.ppid === process.pid);
}

/** Polls until `check` is true or `timeoutMs` passes; returns the last value of `check`. */
export async function waitFor(
  check: () => boolean,
  timeoutMs: number,
  stepMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return check();
}
