import { spawnSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { runCommandAgent } from "../testing/run-command-agent.js";
import { cliNodeArgs, repoRoot } from "../testing/spawn-cli.js";

const MiB = 1024 * 1024;
const isRoot = process.getuid?.() === 0;

/**
 * Writes its findings (a JSON object) as the diagnosis summary, and an empty trajectory. On
 * the host (no-sandbox) the output folder is the workspace's sibling.
 */
const REPORT = `
import json, os
def report(found):
    output = "/output" if os.path.isdir("/output") else "../output"
    with open(output + "/diagnosis.json", "w") as out:
        json.dump({"format": "distdebug.diagnosis/1",
                   "incidentId": os.environ.get("DISTDEBUG_INCIDENT_ID", "x"),
                   "blocks": [], "summary": json.dumps(found)}, out)
    with open(output + "/trajectory.json", "w") as out:
        json.dump({"format": "distdebug.trajectory/1", "agent": {"name": "attacker"},
                   "exitStatus": "submitted", "steps": [],
                   "usage": {"inputTokens": 0, "outputTokens": 0, "cachedTokens": 0,
                             "calls": 0, "costUsd": 0}}, out)
`;

/**
 * Holds 160 MiB in memfds and 160 MiB in detached System V shared memory (40 MiB segments,
 * attached one at a time so the address-space limit never sees them), none of it mapped by
 * a process at the end, for 2 s (8 rounds of the 250 ms sampler).
 */
const UNMAPPED_MEMORY = `${REPORT}
import ctypes, time
found = {"memfdMiB": 0, "shmMiB": 0}
chunk = b"x" * (1 << 20)
held = []
try:
    for _ in range(4):
        fd = os.memfd_create("hold")
        for _ in range(40):
            os.write(fd, chunk)
        held.append(fd)
        found["memfdMiB"] += 40
except OSError as error:
    found["memfd"] = error.strerror
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
for _ in range(4):
    segment = libc.shmget(0, 40 << 20, 0o1600)
    if segment < 0:
        found["shm"] = os.strerror(ctypes.get_errno())
        break
    address = libc.shmat(segment, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        found["shm"] = "shmat: " + os.strerror(ctypes.get_errno())
        break
    ctypes.memset(address, 1, 40 << 20)
    libc.shmdt(ctypes.c_void_p(address))
    found["shmMiB"] += 40
time.sleep(2)
report(found)
`;

/** Creates up to 20,000 empty files in each writable folder and reads its open-file limit. */
const INODES = `${REPORT}
import resource
found = {"nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[1]}
for folder in ["/tmp", "/dev/shm", "/workspace", "/output"]:
    count = 0
    try:
        os.makedirs(folder + "/many", exist_ok=True)
        for index in range(20000):
            open("%s/many/%d" % (folder, index), "w").close()
            count += 1
    except OSError as error:
        found[folder + " error"] = error.strerror
    found[folder] = count
    os.system("rm -rf %s/many" % folder)
report(found)
`;

/** name_to_handle_at on /workspace, then open_by_handle_at with that handle. */
const FILE_HANDLES = `${REPORT}
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
handle = ctypes.create_string_buffer(8 + 128)
ctypes.c_uint32.from_buffer(handle, 0).value = 128
mount_id = ctypes.c_int()
AT_FDCWD = -100
found = {}
result = libc.name_to_handle_at(AT_FDCWD, b"/workspace", handle, ctypes.byref(mount_id), 0)
found["nameToHandle"] = 0 if result == 0 else ctypes.get_errno()
mount_fd = os.open("/workspace", os.O_RDONLY)
result = libc.open_by_handle_at(mount_fd, handle, os.O_RDONLY)
found["openByHandle"] = 0 if result >= 0 else ctypes.get_errno()
report(found)
`;

/** Stands in for /usr/bin/prlimit: what runs there runs before the sandbox drops root. */
const FAKE_PRLIMIT = `#!/bin/sh
caps=$(grep CapEff /proc/self/status | tr -d '\\t ')
printf '{"format":"distdebug.diagnosis/1","incidentId":"x","blocks":[],"summary":"uid=%s %s"}' "$(id -u)" "$caps" > /output/diagnosis.json
`;

/** What the agent reported in its diagnosis summary. */
function findings(diagnosis: string): Record<string, unknown> {
  return JSON.parse((JSON.parse(diagnosis) as { summary: string }).summary);
}

let cacheDir: string;
beforeAll(async () => {
  cacheDir = join(await testdir(), "cache");
});

async function agentRun(script: string, sandbox: Record<string, unknown> = {}) {
  const work = await testdir({ "agent/agent.py": script });
  return runCommandAgent({
    work,
    cacheDir,
    command: ["python3", "/opt/agent/agent.py"],
    sandbox: {
      readOnlyBinds: [{ source: join(work, "agent"), target: "/opt/agent" }],
      ...sandbox,
    },
  });
}

// Root: the sampled memory total, tmpfs disk budgets and the privileged mode exist as root
// (CI runs as root). Each test runs one attempt through the real CLI: up to two minutes on a
// loaded 2-core machine.
describe.runIf(isRoot)("resources no process maps, attacked through distdebug run", () => {
  it("holds no memfd or detached System V shared memory past the 128 MiB budget (refused, or limit-exceeded)", {
    timeout: 180_000,
  }, async () => {
    const { code, stderr, diagnosis, attempt } = await agentRun(UNMAPPED_MEMORY, {
      limits: { memoryBytes: 128 * MiB },
    });
    expect(code, stderr).toBe(0);
    if (attempt?.status !== "limit-exceeded") {
      const found = findings(diagnosis);
      expect(found).toMatchObject({
        memfdMiB: 0,
        memfd: "Operation not permitted",
        shmMiB: 0,
        shm: "Operation not permitted",
      });
    }
  });

  it("caps the files of every tmpfs (/tmp, /dev/shm, /workspace, /output) and the open-file limit", {
    timeout: 180_000,
  }, async () => {
    const { code, stderr, diagnosis } = await agentRun(INODES, {
      tmpfsBytes: 64 * MiB,
      limits: { diskBytes: 64 * MiB },
    });
    expect(code, stderr).toBe(0);
    const found = findings(diagnosis);
    for (const folder of ["/tmp", "/dev/shm", "/workspace", "/output"]) {
      expect(found[folder], folder).toBeLessThan(20_000);
      expect(found[`${folder} error`], folder).toBe("No space left on device");
    }
    expect(found.nofile).toBeLessThanOrEqual(4096);
  });

  it("refuses file handles (name_to_handle_at, open_by_handle_at) with EPERM", {
    timeout: 180_000,
  }, async () => {
    const { code, stderr, diagnosis } = await agentRun(FILE_HANDLES);
    expect(code, stderr).toBe(0);
    expect(findings(diagnosis)).toEqual({ nameToHandle: 1, openByHandle: 1 });
  });
});

describe.runIf(isRoot)("without the compiled launcher", () => {
  it("runs nothing as root that a bind over /usr/bin/prlimit replaced", {
    timeout: 180_000,
  }, async () => {
    const work = await testdir({
      "agent/prlimit": { content: FAKE_PRLIMIT, mode: 0o755 },
      "agent/agent.py": INODES,
    });
    const { code, stderr, diagnosis } = await runCommandAgent({
      work,
      cacheDir,
      command: ["python3", "/opt/agent/agent.py"],
      sandbox: {
        readOnlyBinds: [
          { source: join(work, "agent"), target: "/opt/agent" },
          { source: join(work, "agent/prlimit"), target: "/usr/bin/prlimit" },
        ],
      },
      env: { DISTDEBUG_SANDBOX_LAUNCHER: "off" },
    });
    expect(diagnosis).not.toMatch(/uid=0/);
    expect(code).not.toBe(0);
    expect(stderr).toContain(
      'environment.sandbox.readOnlyBinds[1].target: "/usr/bin/prlimit" is at or under /usr',
    );
  });
});

describe.runIf(isRoot)("the run config's sandbox envelope", () => {
  it("refuses binds that expose the dataset, the cache or the results folder", {
    timeout: 300_000,
  }, async () => {
    const work = await testdir({
      "agent/agent.py": `${REPORT}\nreport({"seen": os.listdir("/opt/leak")})\n`,
    });
    const cache = join(work, "cache");
    await mkdir(cache, { recursive: true });
    const dataset = join(repoRoot, "examples/dataset");
    for (const [source, what] of [
      [join(dataset, "leasekv-77"), `sits inside ${dataset}`],
      [cache, `sits inside ${cache}`],
      [work, `contains ${join(work, "results")}`],
    ] as const) {
      const run = await runCommandAgent({
        work,
        cacheDir: cache,
        command: ["python3", "/opt/agent/agent.py"],
        sandbox: {
          readOnlyBinds: [
            { source: join(work, "agent"), target: "/opt/agent" },
            { source, target: "/opt/leak" },
          ],
        },
        args: ["--redo"],
      });
      expect(run.diagnosis, source).toBe("");
      expect(run.code, source).not.toBe(0);
      expect(run.stderr).toContain(
        `environment.sandbox.readOnlyBinds[1].source: "${source}" ${what}`,
      );
    }
  });

  it("refuses no-sandbox without --unsafe-no-sandbox; package refuses its attempts, and attempts without recorded protected folders", {
    timeout: 300_000,
  }, async () => {
    const work = await testdir({ "agent/agent.py": `${REPORT}\nreport({"uid": os.getuid()})\n` });
    const command = ["python3", join(work, "agent/agent.py")];
    const sandbox = { backend: "no-sandbox" };
    const refused = await runCommandAgent({ work, cacheDir, command, sandbox });
    expect(refused.diagnosis).toBe("");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'environment.sandbox.backend: "no-sandbox" runs the agent on the host',
    );
    expect(refused.stderr).toContain("--unsafe-no-sandbox");

    const unsafe = await runCommandAgent({
      work,
      cacheDir,
      command,
      sandbox,
      args: ["--unsafe-no-sandbox"],
    });
    expect(unsafe.code, unsafe.stderr).toBe(0);
    expect(unsafe.attempt?.status, JSON.stringify(unsafe.attempt)).toBe("succeeded");
    const packaged = packageResults(work);
    expect(packaged.status).toBe(1);
    expect(packaged.stdout + packaged.stderr).toContain(
      'attempt-1/attempt.json: outside the official sandbox envelope: sandbox.backend: "no-sandbox"',
    );

    // An attempt of a version that recorded no protected folders (its policy otherwise inside).
    const recordPath = join(work, "results/leasekv-77/attempt-1/attempt.json");
    const record = JSON.parse(await readFile(recordPath, "utf8"));
    record.sandbox = { ...record.sandbox, backend: "bubblewrap" };
    record.sandbox.policy.backend = "bubblewrap";
    delete record.sandbox.protectedPaths;
    await writeFile(recordPath, JSON.stringify(record));
    const old = packageResults(work);
    expect(old.status).toBe(1);
    expect(old.stdout + old.stderr).toContain("sandbox.protectedPaths: missing");
    expect(old.stdout + old.stderr).not.toContain("sandbox.backend");
  });
});

/** `distdebug package` of the test's results folder. */
function packageResults(work: string) {
  return spawnSync(
    process.execPath,
    [...cliNodeArgs(), "package", join(work, "results"), "--out", join(work, "submission.tar.gz")],
    { cwd: work, encoding: "utf8", env: { ...process.env, CI: "true" } },
  );
}
