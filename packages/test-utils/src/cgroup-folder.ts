import { mkdir, writeFile } from "node:fs/promises";

/**
 * Lays out a folder the way a delegated cgroup v2 looks to its owner (`cgroup.controllers`
 * offering `memory`, an empty `cgroup.subtree_control`, `cgroup.procs`), for tests of the
 * cgroup memory budget on hosts whose memory controller is bound to cgroup v1. Regular files
 * stand in for the kernel's: what the code writes can be read back, limits are not enforced,
 * and the test writes `memory.events` itself to play an oom kill.
 */
export async function cgroupV2Folder(
  dir: string,
  controllers = "cpu io memory pids",
): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/cgroup.controllers`, `${controllers}\n`);
  await writeFile(`${dir}/cgroup.subtree_control`, "");
  await writeFile(`${dir}/cgroup.procs`, `${process.pid}\n`);
  return dir;
}
