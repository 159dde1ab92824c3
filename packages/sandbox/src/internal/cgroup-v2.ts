import { readFile } from "node:fs/promises";
import { resolve } from "node:path";

/** Where this process's cgroup v2 is, or why there is none to use. */
export type OwnCgroup = { dir: string } | { reason: string };

/**
 * This process's cgroup v2 folder, from `/proc/self/cgroup` (the `0::<path>` line) and
 * `/proc/self/mountinfo` (the cgroup2 mount, which is `/sys/fs/cgroup` on unified hosts and
 * `/sys/fs/cgroup/unified` on hybrid ones; inside a cgroup namespace the mount's root is
 * stripped from the path). Pure: the two texts are arguments.
 */
export function ownCgroupDir(procSelfCgroup: string, mountinfo: string): OwnCgroup {
  const own = /^0::(\/.*)$/m.exec(procSelfCgroup)?.[1];
  if (own === undefined) return { reason: "this process is in no cgroup v2 hierarchy" };
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    const tail = fields.slice(fields.indexOf("-") + 1);
    if (tail[0] !== "cgroup2") continue;
    const root = unescapeMountPath(fields[3] ?? "/");
    const point = unescapeMountPath(fields[4] ?? "");
    const relative = root === "/" ? own : relativeTo(own, root);
    if (relative === undefined || point === "") continue;
    return { dir: resolve(point, `.${relative}`) };
  }
  return { reason: "no cgroup2 file system is mounted" };
}

/** `path` below `root` (`/a/b` below `/a` is `/b`), or undefined when it is not below it. */
function relativeTo(path: string, root: string): string | undefined {
  if (path === root) return "/";
  return path.startsWith(`${root}/`) ? path.slice(root.length) : undefined;
}

function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_match, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}

/** The words of a cgroup interface file (`cgroup.controllers`, `cgroup.subtree_control`). */
export async function readWords(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  return text.split(/\s+/).filter((word) => word !== "");
}

/** One counter of a flat keyed file such as `memory.events` (`oom_kill 3`); 0 when absent. */
export async function readCounter(path: string, key: string): Promise<number> {
  const text = await readFile(path, "utf8").catch(() => "");
  const match = new RegExp(`^${key} (\\d+)$`, "m").exec(text);
  return match ? Number(match[1]) : 0;
}

/** The cgroup v2 folder of this process, read from /proc. */
export async function findOwnCgroupDir(): Promise<OwnCgroup> {
  const read = (path: string) => readFile(path, "utf8").catch(() => "");
  return ownCgroupDir(await read("/proc/self/cgroup"), await read("/proc/self/mountinfo"));
}
