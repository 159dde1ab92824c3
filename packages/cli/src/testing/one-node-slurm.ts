import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, openSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The programs a one-node Slurm needs (Debian: slurm-wlm and munge). */
const PROGRAMS = [
  "munged",
  "mungekey",
  "slurmctld",
  "slurmd",
  "sbatch",
  "squeue",
  "scontrol",
  "scancel",
  "sinfo",
];

/** Every process the cluster starts carries this variable (with the cluster's folder) in its environment. */
const MARKER = "DISTDEBUG_TEST_SLURM_DIR";

function which(program: string): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/sbin"];
  return dirs
    .filter((folder) => folder.startsWith("/"))
    .map((folder) => join(folder, program))
    .find((path) => existsSync(path));
}

/** Why a one-node Slurm cannot start here, or undefined when it can. */
export function slurmUnavailable(): string | undefined {
  if (process.platform !== "linux") return `Slurm runs on Linux, not ${process.platform}`;
  if (process.getuid?.() !== 0)
    return "the one-node Slurm runs its daemons as root (SlurmUser=root); run the tests as root";
  const missing = PROGRAMS.filter((program) => !which(program));
  if (missing.length > 0)
    return `${missing.join(", ")} not found (scripts/setup.sh installs slurm-wlm and munge with apt when run as root)`;
  return undefined;
}

/** A running one-node Slurm: munged, slurmctld and slurmd on loopback ports, all state in one folder. */
export interface OneNodeSlurm {
  /** The cluster's folder (slurm.conf, munge key and socket, state, spool, logs). */
  dir: string;
  /** The environment for Slurm's clients; jobs inherit it (sbatch exports the environment). */
  env: NodeJS.ProcessEnv;
  /** Runs a Slurm client (sbatch, squeue, scontrol...) and returns its stdout; throws with its stderr when it fails. */
  client: (program: string, args: readonly string[], cwd?: string) => string;
  /** The last lines of the daemons' logs, for failure messages. */
  logs: () => string;
  /** Cancels every job, stops the daemons by pid and kills any process still carrying the cluster's marker. */
  stop: () => Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** The node as slurmd sees it (`slurmd -C`): its name, CPUs and memory. */
function nodeLine(): string {
  const printed = spawnSync(which("slurmd") ?? "slurmd", ["-C"], { encoding: "utf8" }).stdout;
  const field = (name: string) => new RegExp(`\\b${name}=(\\S+)`).exec(printed)?.[1];
  const [name, cpus, memory] = [field("NodeName"), field("CPUs"), field("RealMemory")];
  if (!name || !cpus || !memory) throw new Error(`slurmd -C printed no node line: ${printed}`);
  return `NodeName=${name} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${memory} State=UNKNOWN`;
}

function slurmConf(dir: string, ports: [number, number], node: string): string {
  const name = /NodeName=(\S+)/.exec(node)?.[1];
  return `${[
    "ClusterName=distdebugtest",
    `SlurmctldHost=${name}(127.0.0.1)`,
    `SlurmctldPort=${ports[0]}`,
    `SlurmdPort=${ports[1]}`,
    "SlurmUser=root",
    "SlurmdUser=root",
    "AuthType=auth/munge",
    "CredType=cred/munge",
    `AuthInfo=socket=${dir}/munge/munge.socket`,
    `StateSaveLocation=${dir}/state`,
    `SlurmdSpoolDir=${dir}/spool`,
    `SlurmctldPidFile=${dir}/slurmctld.pid`,
    `SlurmdPidFile=${dir}/slurmd.pid`,
    `SlurmctldLogFile=${dir}/slurmctld.log`,
    `SlurmdLogFile=${dir}/slurmd.log`,
    "ProctrackType=proctrack/linuxproc",
    "TaskPlugin=task/none",
    "SelectType=select/cons_tres",
    "SelectTypeParameters=CR_CPU",
    "ReturnToService=2",
    "MpiDefault=none",
    "SwitchType=switch/none",
    "JobAcctGatherType=jobacct_gather/none",
    "AccountingStorageType=accounting_storage/none",
    "JobCompType=jobcomp/none",
    "MailProg=/bin/true",
    "KillWait=10",
    "CommunicationParameters=NoInAddrAny",
    node,
    `PartitionName=debug Nodes=${name} Default=YES MaxTime=INFINITE State=UP`,
  ].join("\n")}\n`;
}

/**
 * Starts munged, slurmctld and slurmd for this host in `dir` (its own slurm.conf with the
 * node's real name, CPUs and memory, a munge key made there, daemons on free loopback ports)
 * and waits until the node is idle. The daemons run in the foreground as children that die
 * with this process (`setpriv --pdeathsig`); `stop()` ends them and everything their jobs
 * started. On a failed start it stops what it started and throws with the daemons' logs.
 */
export async function startOneNodeSlurm(dir: string): Promise<OneNodeSlurm> {
  for (const sub of ["munge", "state", "spool"]) await mkdir(join(dir, sub), { recursive: true });
  // munged needs its socket's folder and the folders above searchable by everyone (a
  // testdir() is 0700).
  await chmod(dir, 0o755);
  await chmod(join(dir, "munge"), 0o755);
  const conf = join(dir, "slurm.conf");
  await writeFile(conf, slurmConf(dir, [await freePort(), await freePort()], nodeLine()));
  const env: NodeJS.ProcessEnv = { ...process.env, SLURM_CONF: conf, [MARKER]: dir };
  const daemons: ChildProcess[] = [];
  const cluster = clusterHandle(dir, env, daemons);
  try {
    const key = join(dir, "munge", "munge.key");
    run("mungekey", ["--create", `--keyfile=${key}`], env);
    daemons.push(
      daemon(dir, "munged", env, [
        "--foreground",
        `--key-file=${key}`,
        `--socket=${dir}/munge/munge.socket`,
        `--pid-file=${dir}/munge/munged.pid`,
        `--seed-file=${dir}/munge/munged.seed`,
        `--log-file=${dir}/munge/munged.log`,
      ]),
    );
    await until(() => existsSync(join(dir, "munge", "munge.socket")), "munged's socket", daemons);
    daemons.push(daemon(dir, "slurmctld", env, ["-D", "-f", conf]));
    daemons.push(daemon(dir, "slurmd", env, ["-D", "-f", conf]));
    await until(
      () =>
        spawnSync("sinfo", ["-h", "-N", "-o", "%T"], { env, encoding: "utf8" }).stdout.trim() ===
        "idle",
      "an idle node in sinfo",
      daemons,
    );
    return cluster;
  } catch (error) {
    const logs = cluster.logs();
    await cluster.stop();
    throw new Error(`the one-node Slurm did not start: ${String(error)}\n${logs}`);
  }
}

function run(
  program: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): string {
  const result = spawnSync(which(program) ?? program, args, {
    env,
    encoding: "utf8",
    ...(cwd ? { cwd } : {}),
  });
  if (result.status !== 0)
    throw new Error(
      `${program} ${args.join(" ")} exited ${result.status}: ${result.stderr}${result.error ?? ""}`,
    );
  return result.stdout;
}

function daemon(
  dir: string,
  program: string,
  env: NodeJS.ProcessEnv,
  args: string[],
): ChildProcess {
  const log = openSync(join(dir, `${program}.out`), "a");
  const path = which(program) ?? program;
  // The daemon dies with this process even when afterAll never runs (a crashed worker).
  const setpriv = which("setpriv");
  const [command, words] = setpriv
    ? [setpriv, ["--pdeathsig", "KILL", "--", path, ...args]]
    : [path, args];
  return spawn(command, words, { env, stdio: ["ignore", log, log] });
}

/** Polls `ready` every 200 ms for up to 90 s (a loaded 2-core machine starts daemons slowly). */
async function until(ready: () => boolean, what: string, daemons: ChildProcess[]): Promise<void> {
  for (let tries = 0; tries < 450; tries++) {
    const dead = daemons.find((child) => child.exitCode !== null || child.signalCode !== null);
    if (dead) throw new Error(`${dead.spawnargs.join(" ")} exited while waiting for ${what}`);
    if (ready()) return;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function clusterHandle(dir: string, env: NodeJS.ProcessEnv, daemons: ChildProcess[]): OneNodeSlurm {
  const logs = () =>
    ["munged.out", "slurmctld.log", "slurmd.log"]
      .map((name) => join(dir, name))
      .filter((path) => existsSync(path))
      .map((path) => `--- ${path}\n${readFileSync(path, "utf8").split("\n").slice(-15).join("\n")}`)
      .join("\n");
  return {
    dir,
    env,
    client: (program, args, cwd) => run(program, args, env, cwd),
    logs,
    stop: async () => {
      await cancelJobs(env, daemons);
      for (const child of [...daemons].reverse()) await stopDaemon(child);
      killMarked(dir);
    },
  };
}

/** Cancels every job of the cluster and waits (up to 60 s) until none is left. */
async function cancelJobs(env: NodeJS.ProcessEnv, daemons: ChildProcess[]): Promise<void> {
  const controller = daemons.find((child) =>
    child.spawnargs.some((arg) => arg.endsWith("slurmctld")),
  );
  if (!controller || controller.exitCode !== null) return;
  spawnSync("scancel", ["--user=root"], { env });
  for (let tries = 0; tries < 300; tries++) {
    const left = spawnSync("squeue", ["-h", "-o", "%i"], { env, encoding: "utf8" });
    if (left.status !== 0 || left.stdout.trim() === "") return;
    await sleep(200);
  }
}

/** SIGTERM, then SIGKILL after 15 s. */
async function stopDaemon(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Kills, by pid, every process whose environment carries the cluster's marker: job steps
 * (slurmstepd) and what the jobs started outlive slurmd, which does not end them on stop.
 */
function killMarked(dir: string): void {
  const needle = `${MARKER}=${dir}\0`;
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, "latin1").includes(needle))
        process.kill(pid, "SIGKILL");
    } catch {
      // The process ended meanwhile, or is not ours to read.
    }
  }
}
