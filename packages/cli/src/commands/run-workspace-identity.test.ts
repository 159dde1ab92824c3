import { execFileSync, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildIncidentRepository, loadDataset } from "@distdebug/dataset";
import {
  exampleDatasetDir,
  type GitHttpServer,
  gitHttpServer,
  testdir,
} from "@distdebug/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliNodeArgs } from "../testing/spawn-cli.js";

const ID = "leasekv-77";
const ISSUE_KEY = "LEASEKV-77";
/** The mark put above the bug: scrubbing must not turn it into a pointer. */
const MARK = `\t// TODO(${ISSUE_KEY}): recheck the keys under the store lock`;
const MARK_LINE = 146;

/**
 * The attacker: probes what the workspace and the sandbox say beyond the code, in sections on
 * stdout (kept in the attempt's trajectory), and names the file of the pack's last blob.
 * Times first: anything that reads the workspace moves atimes.
 */
const AGENT = `#!/bin/sh
cd /workspace || exit 1
echo "== times"
find /workspace -printf '%A@ %T@\\n' | sort -u
echo "== pack"
G="git -c safe.directory=*"
paths=$($G ls-tree -r HEAD | awk '$2 == "blob" { print $3 " " $4 }')
last=""
for oid in $(git verify-pack -v .git/objects/pack/*.pack | awk '$2 == "blob" { print $1 }'); do
  last=$(echo "$paths" | awk -v o="$oid" '$1 == o { print $2; exit }')
  echo "blob $last"
done
echo "== marks"
grep -rn "TODO(" --include=*.go . | tr -d '\\t'
grep -rnoE "[xX]{6,}" --include=*.go . | head -5
echo "== identity"
env | sort
cat /task/task.json
echo "hostname $(cat /proc/sys/kernel/hostname)"
cat /proc/self/mountinfo
echo "== end"
printf '{"format":"distdebug.diagnosis/1","incidentId":"%s","blocks":[{"path":"%s","startLine":1,"endLine":2}]}' "$DISTDEBUG_INCIDENT_ID" "$last" > /output/diagnosis.json
`;

const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Dev",
      GIT_AUTHOR_EMAIL: "dev@leasekv.dev",
      GIT_COMMITTER_NAME: "Dev",
      GIT_COMMITTER_EMAIL: "dev@leasekv.dev",
      GIT_AUTHOR_DATE: "1750000000 +0000",
      GIT_COMMITTER_DATE: "1750000000 +0000",
    },
  }).trim();

/**
 * Unpacks every pack of a bare repository into loose objects, as a repository that grew by
 * pushes is before a repack: the server then packs it in git's recency order, where the
 * versions of the files a fix changed come after everything the newest tree holds.
 */
async function unpackAll(bare: string): Promise<void> {
  const packDir = join(bare, "objects/pack");
  for (const name of readdirSync(packDir).filter((file) => file.endsWith(".pack"))) {
    const pack = await readFile(join(packDir, name));
    await rm(join(packDir, name));
    await rm(join(packDir, name.replace(/\.pack$/, ".idx")));
    execFileSync("git", ["unpack-objects", "-q"], { cwd: bare, input: pack });
  }
}

let server: GitHttpServer;
let fixedFiles: string[];
let sections: Map<string, string>;
let stderr: string;
let code: number | null;
let diagnosis: { incidentId: string; blocks: { path: string }[] };
let trajectoryId: string | undefined;

/**
 * The example incident as a catalog incident: its history plus a commit that puts an issue
 * mark above the bug (the buggy revision) and the fix on top, served by a loopback git
 * server, so the workspace is prepared from a server's pack (recency-ordered: the buggy
 * versions of the fixed files come last).
 */
async function servedIncident(): Promise<string> {
  const exampleDir = exampleDatasetDir();
  const entry = (await loadDataset(exampleDir)).incidents.find((incident) => incident.id === ID)!;
  const built = await buildIncidentRepository(entry, { cacheDir: await testdir() });
  const gold = JSON.parse(await readFile(join(exampleDir, ID, "gold.json"), "utf8"));
  const work = join(await testdir(), "work");
  execFileSync("git", ["clone", "-q", built.gitdir, work]);
  git(work, "checkout", "-q", "-b", "marked", built.buggyCommit);
  const lessor = join(work, "lease/lessor.go");
  const lines = (await readFile(lessor, "utf8")).split("\n");
  lines.splice(MARK_LINE - 1, 0, MARK);
  await writeFile(lessor, lines.join("\n"));
  git(work, "commit", "-qam", "lease: mark the expiry race");
  const buggy = git(work, "rev-parse", "HEAD");
  fixedFiles = git(work, "diff", "--name-only", `${gold.fix.commit}^`, gold.fix.commit).split("\n");
  git(work, "checkout", "-q", gold.fix.commit, "--", ...fixedFiles);
  git(work, "commit", "-qm", "lease: take the store lock before reading the keys");
  const fix = git(work, "rev-parse", "HEAD");
  const served = await testdir();
  const bare = join(served, "leasekv.git");
  execFileSync("git", ["clone", "-q", "--bare", work, bare]);
  await unpackAll(bare);
  // No deltas: git writes a delta family together, which hides the order on a repository this
  // small; a large host's packs (reused, with bitmaps) keep recency order.
  git(bare, "config", "pack.window", "0");
  server = await gitHttpServer(served);

  const dir = join(await testdir(), "dataset");
  await cp(join(exampleDir, ID), join(dir, ID), { recursive: true });
  await rm(join(dir, ID, "repo"), { recursive: true });
  const incidentPath = join(dir, ID, "incident.json");
  const incident = JSON.parse(await readFile(incidentPath, "utf8"));
  incident.repository = { url: server.url("leasekv.git"), buggyCommit: buggy };
  await writeFile(incidentPath, JSON.stringify(incident));
  gold.fix.commit = fix;
  for (const block of gold.blocks)
    if (block.path === "lease/lessor.go" && block.startLine >= MARK_LINE) {
      block.startLine += 1;
      block.endLine += 1;
    }
  await writeFile(join(dir, ID, "gold.json"), JSON.stringify(gold));
  await writeFile(
    join(dir, "dataset.json"),
    JSON.stringify({
      format: "distdebug.dataset/1",
      name: "served",
      version: "1",
      incidents: [ID],
    }),
  );
  return dir;
}

/** Runs `distdebug run` with the attacker; returns its stdout sections from the trajectory. */
async function runAttacker(dataset: string): Promise<void> {
  const work = await testdir({ "agent/agent.sh": AGENT });
  const config = {
    name: "identity",
    agent: { type: "command", command: ["/bin/sh", "/opt/agent/agent.sh"], wallTimeLimitSec: 120 },
    environment: {
      sandbox: { readOnlyBinds: [{ source: join(work, "agent"), target: "/opt/agent" }] },
    },
  };
  await writeFile(join(work, "config.json"), JSON.stringify(config));
  const args = [
    ...[...cliNodeArgs(), "run", "--config", join(work, "config.json")],
    ...["--dataset", dataset, "--bug", ID, "--runs", "1"],
    ...["--out", join(work, "results"), "--cache-dir", join(work, "cache")],
  ];
  const child = spawn(process.execPath, args, {
    cwd: work,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, CI: "true" },
  });
  stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const attempt = join(work, "results", ID, "attempt-1");
  const trajectory = JSON.parse(await readFile(join(attempt, "trajectory.json"), "utf8"));
  const output: string = trajectory.steps[0]?.output ?? "";
  trajectoryId = trajectory.incidentId;
  sections = new Map(
    output
      .split(/^== /m)
      .slice(1)
      .map((part) => [part.slice(0, part.indexOf("\n")), part.slice(part.indexOf("\n") + 1)]),
  );
  diagnosis = JSON.parse(await readFile(join(attempt, "diagnosis.json"), "utf8"));
}

beforeAll(async () => {
  await runAttacker(await servedIncident());
  // A clone over loopback HTTP, a workspace and one sandboxed run of a shell script.
}, 240_000);

afterAll(() => server?.close());

describe("an attacker in the sandbox of an incident served like the catalog's", () => {
  it("runs to the end with a clean leakage check", () => {
    expect(stderr).toContain(`${ID} attempt 1: succeeded`);
    expect(code).toBe(0);
    expect(sections.has("end")).toBe(true);
  });

  it("finds the workspace pack in path order: its last blob is not a fixed file", () => {
    const blobs = (sections.get("pack") ?? "")
      .split("\n")
      .filter((line) => line.startsWith("blob "))
      .map((line) => line.slice(5));
    expect(blobs.length).toBeGreaterThan(20);
    expect(fixedFiles).not.toContain(blobs.at(-1));
    expect(fixedFiles).not.toContain(diagnosis.blocks[0]?.path);
    expect(blobs).toEqual(
      [...blobs].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
    );
  });

  it("reads one neutral time (2000-01-01) as the atime and mtime of every file and folder", () => {
    expect((sections.get("times") ?? "").trim().split("\n")).toEqual([
      "946684800.0000000000 946684800.0000000000",
    ]);
  });

  it("finds neither the incident id nor the issue key in its env, task.json, hostname or mountinfo", () => {
    const identity = sections.get("identity") ?? "";
    expect(identity).toContain("/workspace");
    expect(identity).toContain("hostname sandbox");
    const taskId = /DISTDEBUG_INCIDENT_ID=(\S+)/.exec(identity)?.[1];
    expect(taskId).toMatch(/^task-[0-9a-f]{16}$/);
    expect(identity).toContain(`"id": "${taskId}"`);
    expect(identity.toLowerCase()).not.toContain(ID);
    expect(identity.toLowerCase()).not.toContain(ISSUE_KEY.toLowerCase());
    // The harness maps the task id back: the results name the real incident.
    expect(diagnosis.incidentId).toBe(ID);
    expect(trajectoryId).toBe(ID);
  });

  it("sees the issue mark above the bug scrubbed to a plain word, with no run of x to search for", () => {
    const marks = sections.get("marks") ?? "";
    expect(marks).toContain(
      "./lease/lessor.go:146:// TODO(issue): recheck the keys under the store lock",
    );
    expect(marks).not.toMatch(/x{6,}/i);
    expect(marks.toLowerCase()).not.toContain(ISSUE_KEY.toLowerCase());
  });
});
