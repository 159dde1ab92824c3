/**
 * Per-command overhead of @distdebug/sandbox versus a bare spawn of the same command.
 *
 *   node --conditions=@distdebug/source --import tsx bench/sandbox/overhead.ts [runs=200]
 *
 * Each round runs, in turn: a bare `spawn("/bin/sh", ["-c", cmd])`; bwrap with minimal flags;
 * bwrap with the sandbox's own mounts and namespaces but no limits, uid drop or seccomp (the
 * fair floor: bwrap's own cost for the same sandbox); `sandbox.exec(cmd)` in the default mode (privileged when
 * root); and `sandbox.exec(cmd)` in user-namespace mode. Interleaving keeps the comparison fair
 * on a shared, noisy machine. Prints median and p95 of each and the overhead over bare spawn
 * (median of the per-round differences), then each `sandbox.exec` median beside the same-mounts
 * floor with their ratio. Target: privileged `sandbox.exec` <= 1.5x the same-mounts floor.
 * Wall time on a loaded machine is mostly waiting for a CPU, so it also prints the mean CPU
 * time (user + system) the command's processes used, read from /proc/self/stat (cutime,
 * cstime; 10 ms ticks, averaged over the rounds): that part does not depend on the load.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, type Sandbox } from "@distdebug/sandbox";
import { sameMountArgs } from "./same-mounts.js";

const runs = Number(process.argv[2] ?? 200);
const command = "echo hello";

function spawnOnce(file: string, args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - started));
  });
}

async function execOnce(sandbox: Sandbox): Promise<number> {
  const started = performance.now();
  const result = await sandbox.exec(command);
  if (result.stdout !== "hello\n") throw new Error(`unexpected output ${JSON.stringify(result)}`);
  return performance.now() - started;
}

/** CPU milliseconds used by this process's waited-for children so far. */
function childCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  // After "pid (comm) ": field 16 cutime and 17 cstime of proc(5) are at indexes 13 and 14.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

const workspace = mkdtempSync(join(tmpdir(), "distdebug-bench-"));
try {
  const privileged = await createSandbox({ workspace });
  const userNamespace = await createSandbox({ workspace, mode: "user-namespace" });
  const floorArgs = [
    "--unshare-pid",
    "--unshare-net",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--bind",
    workspace,
    "/workspace",
    "--chdir",
    "/workspace",
    "--",
    "/bin/sh",
    "-c",
    command,
  ];
  const variants: [string, () => Promise<number>][] = [
    ["bare spawn sh -c", () => spawnOnce("/bin/sh", ["-c", command])],
    ["bare bwrap, minimal flags (floor)", () => spawnOnce("bwrap", floorArgs)],
    [
      "bare bwrap, the sandbox's mounts",
      () =>
        spawnOnce("bwrap", sameMountArgs([{ source: workspace, target: "/workspace" }], command)),
    ],
    [`sandbox.exec (${privileged.mode})`, () => execOnce(privileged)],
    ["sandbox.exec (user-namespace)", () => execOnce(userNamespace)],
  ];
  const samples = variants.map((): number[] => []);
  const cpu = variants.map(() => 0);
  for (let round = 0; round < runs + 10; round += 1) {
    for (const [index, [, once]] of variants.entries()) {
      const cpuBefore = childCpuMs();
      const duration = await once();
      if (round < 10) continue;
      samples[index]?.push(duration);
      cpu[index] = (cpu[index] ?? 0) + childCpuMs() - cpuBefore;
    }
  }
  console.log(
    `${runs} interleaved rounds of \`${command}\`; load average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(" ")} (shared machine: expect noise)`,
  );
  const bare = samples[0] ?? [];
  for (const [index, [name]] of variants.entries()) {
    const own = samples[index] ?? [];
    const overhead = own.map((value, round) => value - (bare[round] ?? 0));
    console.log(
      `${name.padEnd(36)} median ${quantile(own, 0.5).toFixed(2).padStart(6)} ms  p95 ${quantile(own, 0.95).toFixed(2).padStart(6)} ms` +
        (index === 0
          ? ""
          : `  overhead median ${quantile(overhead, 0.5).toFixed(2).padStart(6)} ms  p95 ${quantile(overhead, 0.95).toFixed(2).padStart(6)} ms`) +
        `  cpu ${((cpu[index] ?? 0) / runs).toFixed(2)} ms`,
    );
  }
  const sameMounts = quantile(samples[2] ?? [], 0.5);
  for (const index of [3, 4]) {
    const own = quantile(samples[index] ?? [], 0.5);
    console.log(
      `${variants[index]?.[0]}: ${own.toFixed(2)} ms vs bare bwrap with the same mounts ${sameMounts.toFixed(2)} ms = ${(own / sameMounts).toFixed(2)}x`,
    );
  }
  console.log(
    "target: sandbox.exec (privileged) <= 1.5x bare bwrap with the same mounts (median), protections on",
  );
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
