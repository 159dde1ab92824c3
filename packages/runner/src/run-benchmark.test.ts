import { appendFile, cp, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Agent } from "@distdebug/agents";
import { type Dataset, loadDataset } from "@distdebug/dataset";
import { attemptInputHash } from "@distdebug/results";
import {
  loadConfig,
  parseAttempt,
  parseDiagnosisScores,
  parseRunConfig,
  type RunConfig,
} from "@distdebug/schema";
import { exampleDatasetDir, repoPath, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "./events.js";
import { runBenchmark } from "./run-benchmark.js";
import { configHash } from "./run-info.js";
import { scoreResults } from "./score-results.js";
import { HARNESS_VERSION } from "./version.js";

const exampleDir = exampleDatasetDir();
let dataset: Dataset;
let cacheDir: string;

beforeAll(async () => {
  dataset = await loadDataset(exampleDir);
  cacheDir = await testdir();
});

function config(name: string, extra: Record<string, unknown> = {}): RunConfig {
  return parseRunConfig({
    name,
    agent: { type: "baseline", wallTimeLimitSec: 60 },
    run: { attempts: 2 },
    ...extra,
  });
}

/**
 * A copy of the example dataset to edit (as a new dataset version would), its first two
 * incidents, and run options with one attempt into a fresh results folder.
 */
async function exampleCopy(configName: string) {
  const copy = join(await testdir(), "dataset");
  await cp(exampleDir, copy, { recursive: true });
  const before = await loadDataset(copy);
  const incidents = before.incidents.slice(0, 2);
  const outDir = join(await testdir(), "results");
  const options = { config: config(configName), outDir, cacheDir, attempts: 1 };
  return { copy, before, incidents, outDir, options };
}

/** A test agent: one shell command inside the real sandbox writes the agent's files. */
function shellAgent(script: (incidentId: string) => string): Agent {
  return {
    name: "shell",
    async run(context) {
      const result = await context.sandbox.exec(script(context.incidentId), { timeoutMs: 20_000 });
      return result.exitCode === 0
        ? {
            status: "succeeded",
            usage: { inputTokens: 10, outputTokens: 5, cachedTokens: 0, calls: 1, costUsd: null },
          }
        : {
            status: "agent-error",
            message: result.stderr,
            usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: null },
          };
    },
  };
}

describe("runBenchmark", () => {
  it("runs the baseline end to end, writes every file, and resumes without redoing", async () => {
    const outDir = join(await testdir(), "results");
    const incidents = dataset.incidents.slice(0, 2);
    const events: RunEvent[] = [];
    const first = await runBenchmark({
      config: config("baseline"),
      dataset,
      incidents,
      outDir,
      cacheDir,
      onEvent: (event) => events.push(event),
    });
    expect(first.ran).toBe(4);
    expect(first.attempts.map((record) => record.status)).toEqual([
      "succeeded",
      "succeeded",
      "succeeded",
      "succeeded",
    ]);
    for (const incident of incidents) {
      for (const attempt of [1, 2]) {
        const dir = join(outDir, incident.id, `attempt-${attempt}`);
        expect((await readdir(dir)).sort()).toEqual([
          "attempt.json",
          "diagnosis.json",
          "diagnosis_scores.json",
          "trajectory.json",
        ]);
        const record = parseAttempt(await readFile(join(dir, "attempt.json"), "utf8"));
        const scores = parseDiagnosisScores(
          await readFile(join(dir, "diagnosis_scores.json"), "utf8"),
        );
        // The metrics live in diagnosis_scores.json only: attempt.json keeps no copy to go stale.
        expect(record.metrics).toBeUndefined();
        expect(record.outputs).not.toHaveProperty("diagnosis_scores.json");
        expect(scores.inputHash).toMatch(/^[0-9a-f]{64}$/);
        expect(record.sandbox.backend).toBe("bubblewrap");
        expect(Object.keys(record.timings).sort()).toEqual([
          "agent",
          "leakage",
          "sandbox",
          "scoring",
          "workspace",
        ]);
      }
    }
    expect(events.filter((event) => event.type === "attempt-end")).toHaveLength(4);
    // The run carries the workspace's and the sandbox's events of each attempt, tagged with it.
    const nested = (incidentId: string, attempt: number) =>
      events.flatMap((event) =>
        (event.type === "attempt-workspace" || event.type === "attempt-sandbox") &&
        event.incidentId === incidentId &&
        event.attempt === attempt
          ? [`${event.type}:${event.event.type}`]
          : [],
      );
    for (const incident of incidents)
      for (const attempt of [1, 2]) {
        const seen = nested(incident.id, attempt);
        expect(seen).toContain("attempt-workspace:workspace-prepare-end");
        expect(seen.some((type) => /^attempt-workspace:cache-(hit|miss)$/.test(type))).toBe(true);
        expect(seen).toContain("attempt-sandbox:command-start");
        expect(seen).toContain("attempt-sandbox:command-end");
      }
    const second = await runBenchmark({
      config: config("baseline"),
      dataset,
      incidents,
      outDir,
      cacheDir,
    });
    expect(second.ran).toBe(0);
    expect(second.reused).toBe(4);
    const redo = await runBenchmark({
      config: config("baseline"),
      dataset,
      incidents: incidents.slice(0, 1),
      outDir,
      cacheDir,
      redo: true,
    });
    expect(redo.ran).toBe(2);
  });

  it("refuses a changed config (naming --out and --redo) or another configuration's folder; redo redoes", async () => {
    const outDir = join(await testdir(), "results");
    const incidents = dataset.incidents.slice(0, 1);
    await runBenchmark({
      config: config("same"),
      dataset,
      incidents,
      outDir,
      cacheDir,
      attempts: 1,
    });
    const changedConfig = config("same", { agent: { type: "baseline", rowBudget: 20 } });
    const refused = runBenchmark({ config: changedConfig, dataset, incidents, outDir, cacheDir });
    await expect(refused).rejects.toMatchObject({ code: "RESULTS_CONFLICT" });
    await expect(refused).rejects.toThrow(
      /another version of the configuration "same".*--out.*--redo/,
    );
    const redone = await runBenchmark({
      config: changedConfig,
      dataset,
      incidents,
      outDir,
      cacheDir,
      attempts: 1,
      redo: true,
    });
    expect(redone.ran).toBe(1);
    await expect(
      runBenchmark({ config: config("other"), dataset, incidents, outDir, cacheDir }),
    ).rejects.toMatchObject({ code: "RESULTS_CONFLICT" });
  });

  it("reruns only the incident whose report changed in a new version of the dataset", async () => {
    const { copy, before, incidents, options } = await exampleCopy("data");
    expect((await runBenchmark({ ...options, dataset: before, incidents })).ran).toBe(2);
    expect((await runBenchmark({ ...options, dataset: before, incidents })).ran).toBe(0);
    await appendFile(join(incidents[0]!.dir, "report.md"), "\nOne more line from the reporter.\n");
    const after = await loadDataset(copy);
    expect(after.digest).not.toBe(before.digest);
    expect(after.incidents[0]!.digest).not.toBe(before.incidents[0]!.digest);
    expect(after.incidents[1]!.digest).toBe(before.incidents[1]!.digest);
    const again = { ...options, dataset: after, incidents: after.incidents.slice(0, 2) };
    const result = await runBenchmark(again);
    expect({ ran: result.ran, reused: result.reused }).toEqual({ ran: 1, reused: 1 });
    expect(result.attempts.map((attempt) => attempt.incidentDigest)).toEqual(
      after.incidents.slice(0, 2).map((incident) => incident.digest),
    );
    expect((await runBenchmark({ ...again, redo: true })).ran).toBe(2);
  });

  it("keeps finished attempts when only what no agent sees changes, and those hashed by the earlier rule", async () => {
    const { copy, before, incidents, outDir, options } = await exampleCopy("unseen");
    expect((await runBenchmark({ ...options, dataset: before, incidents })).ran).toBe(2);
    // The labeler corrects a clue flag, the category and the provenance note of the first.
    const incidentFile = join(incidents[0]!.dir, "incident.json");
    const incident = JSON.parse(await readFile(incidentFile, "utf8"));
    incident.clues.usableStackTrace = !incident.clues.usableStackTrace;
    incident.category = incident.category === "logic" ? "concurrency" : "logic";
    incident.provenance = {
      issue: "ZOOKEEPER-142",
      fixCommits: ["0".repeat(40)],
      repository: "example/zklite",
      text: "report written for this catalog",
      note: "checked against the real report again",
    };
    await writeFile(incidentFile, `${JSON.stringify(incident, null, 4)}\n`);
    const after = await loadDataset(copy);
    expect(after.digest).not.toBe(before.digest);
    expect(after.incidents[0]!.digest).toBe(before.incidents[0]!.digest);
    expect(after.incidents[0]!.earlierDigests).not.toEqual(before.incidents[0]!.earlierDigests);
    const again = { ...options, dataset: after, incidents: after.incidents.slice(0, 2) };
    expect((await runBenchmark(again)).ran).toBe(0);
    // An attempt recorded with the earlier rule (the whole incident.json) is kept, and migrated.
    const second = after.incidents[1]!;
    const attemptFile = join(outDir, second.id, "attempt-1", "attempt.json");
    const record = parseAttempt(JSON.parse(await readFile(attemptFile, "utf8")));
    const earlier = second.earlierDigests[0]!;
    expect(earlier).not.toBe(second.digest);
    const identity = {
      harnessVersion: HARNESS_VERSION,
      configHash: configHash(options.config),
      incidentId: second.id,
      attempt: 1,
    };
    expect(record.inputHash).toBe(attemptInputHash({ ...identity, incidentDigest: second.digest }));
    const old = {
      ...record,
      incidentDigest: earlier,
      inputHash: attemptInputHash({ ...identity, incidentDigest: earlier }),
    };
    await writeFile(attemptFile, JSON.stringify(old));
    expect((await runBenchmark(again)).ran).toBe(0);
    const migrated = parseAttempt(JSON.parse(await readFile(attemptFile, "utf8")));
    expect(migrated.incidentDigest).toBe(second.digest);
    // A record with an unknown digest is not: it runs again.
    await writeFile(attemptFile, JSON.stringify({ ...old, incidentDigest: "0".repeat(64) }));
    expect((await runBenchmark(again)).ran).toBe(1);
  });

  it("refuses a second run on a results folder in use, and cleans what a killed run left", async () => {
    const outDir = join(await testdir(), "results");
    const incidents = dataset.incidents.slice(0, 1);
    const incidentId = incidents[0]!.id;
    // Leftovers of a killed run (pid 2^22 + 1 is above Linux's pid_max default: dead).
    const dead = 4194305;
    await mkdir(join(outDir, incidentId, ".attempt-1.partial-0badc0de"), { recursive: true });
    await mkdir(join(outDir, incidentId, ".attempt-1.replaced-0badc0de"), { recursive: true });
    await mkdir(join(cacheDir, "tmp", `${incidentId}-a1-p${dead}-AbC123`), { recursive: true });
    await mkdir(join(cacheDir, "tmp", `${incidentId}-a1-p${process.pid}-Live12`), {
      recursive: true,
    });
    await writeFile(join(outDir, ".run.lock"), `${dead}@${hostname()}\n`);
    const first = runBenchmark({ config: config("busy"), dataset, incidents, outDir, cacheDir });
    const second = runBenchmark({ config: config("busy"), dataset, incidents, outDir, cacheDir });
    const settled = await Promise.allSettled([first, second]);
    expect(settled.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    const refused = settled.find((outcome) => outcome.status === "rejected");
    expect(refused).toMatchObject({ reason: { code: "RESULTS_CONFLICT" } });
    expect(refused?.reason.message).toContain(`is in use by process ${process.pid}`);
    expect((await readdir(join(outDir, incidentId))).sort()).toEqual(["attempt-1", "attempt-2"]);
    expect(await readdir(outDir)).not.toContain(".run.lock");
    const temp = await readdir(join(cacheDir, "tmp"));
    expect(temp).toContain(`${incidentId}-a1-p${process.pid}-Live12`);
    expect(temp.filter((name) => name.includes(`-p${dead}-`))).toEqual([]);
  });

  it("gives agent errors their status and scores them 0, and keeps infra errors apart", async () => {
    const outDir = join(await testdir(), "results");
    const incidents = dataset.incidents.slice(0, 1);
    const id = incidents[0]!.id;
    const invalid = await runBenchmark({
      config: config("invalid"),
      dataset,
      incidents,
      outDir,
      cacheDir,
      attempts: 1,
      agent: shellAgent(
        () => `echo '{"format":"distdebug.diagnosis/1","blocks":"x"}' > /output/diagnosis.json`,
      ),
    });
    expect(invalid.attempts[0]).toMatchObject({
      status: "agent-error",
      error: { code: "INVALID_FILE" },
    });
    const invalidScores = parseDiagnosisScores(
      await readFile(join(outDir, incidents[0]!.id, "attempt-1/diagnosis_scores.json")),
    );
    expect(invalidScores.metrics.blockCoverage).toBe(0);
    const silent = await runBenchmark({
      config: config("invalid"),
      dataset,
      incidents,
      outDir,
      cacheDir,
      attempts: 1,
      redo: true,
      agent: shellAgent(() => "true"),
    });
    expect(silent.attempts[0]).toMatchObject({
      status: "agent-error",
      error: { code: "NO_DIAGNOSIS" },
    });
    // An agent that reads the workspace's history sees only the one neutral commit, and can
    // commit to it (the copy is its own, every entry, without the sandbox walking it).
    const history = await runBenchmark({
      config: config("invalid"),
      dataset,
      incidents,
      outDir,
      cacheDir,
      attempts: 1,
      redo: true,
      agent: shellAgent(
        (incident) =>
          `cd /workspace && n=$(git log --all --oneline | wc -l) && test "$n" = 1 && echo x >> "$(git ls-files | tail -1)" && mkdir -p new/dir && echo y > new/dir/file && git add -A && git -c user.name=a -c user.email=a@a commit -qm w && echo '{"format":"distdebug.diagnosis/1","incidentId":"${incident}","blocks":[]}' > /output/diagnosis.json`,
      ),
    });
    expect(history.attempts[0]?.status).toBe("succeeded");
    expect(id).toBeTruthy();
  });

  it("rescoring is pure and matches the scores written by the run", async () => {
    const outDir = join(await testdir(), "results");
    const incidents = dataset.incidents.slice(0, 2);
    await runBenchmark({
      config: config("pure"),
      dataset,
      incidents,
      outDir,
      cacheDir,
      attempts: 1,
    });
    // Scored again from scratch, the run's own scores come out byte for byte.
    const first = await scoreResults({ outDir, cacheDir, rescore: true });
    expect(first.rescored).toBe(2);
    expect(first.changed).toBe(0);
    const summaryText = await readFile(join(outDir, "summary.json"), "utf8");
    const second = await scoreResults({ outDir, cacheDir });
    expect(second.reused).toBe(2);
    expect(second.changed).toBe(0);
    expect(await readFile(join(outDir, "summary.json"), "utf8")).toBe(summaryText);
    expect(first.summary.counts.incidents).toBe(2);
  });

  it("loads the bundled baseline config", async () => {
    const loaded = await loadConfig({
      files: [repoPath("configs/baseline/default.yaml")],
    });
    expect(loaded.agent.type).toBe("baseline");
  });
});
