import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DistDebugError, parseTaskManifest } from "@distdebug/schema";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { writeAgentTaskFolder } from "./agent-task-folder.js";
import { datasetDigest } from "./digest.js";
import { loadGold } from "./gold.js";
import { loadDataset } from "./load-dataset.js";
import { globToRegExp, selectIncidents } from "./select.js";
import { incidentTask, writeTaskFiles } from "./task.js";
import type { Dataset } from "./types.js";

const examples = exampleDatasetDir();
let dataset: Dataset;
beforeAll(async () => {
  dataset = await loadDataset(examples);
});

describe("selectIncidents", () => {
  it("selects by id globs, systems and languages, in dataset order", () => {
    const ids = (selection: Parameters<typeof selectIncidents>[1]) =>
      selectIncidents(dataset, selection).map((entry) => entry.id);
    expect(ids({ ids: ["zklite-*"] })).toEqual(["zklite-142", "zklite-188"]);
    expect(ids({ ids: ["streamlog-??"] })).toEqual(["streamlog-64"]);
    expect(ids({ systems: ["streamlog"] })).toEqual(["streamlog-64", "streamlog-133"]);
    expect(ids({ languages: ["go", "c"] })).toEqual([
      "raftkv-311",
      "leasekv-77",
      "swimlite-27",
      "pagestore-412",
    ]);
    expect(ids({ ids: ["*-1*"], languages: ["java"] })).toEqual(["zklite-142", "zklite-188"]);
    expect(ids({})).toHaveLength(11);
    expect(ids({ systems: ["etcd"] })).toEqual([]);
  });

  it("names a glob that matches nothing", () => {
    const error = (() => {
      try {
        selectIncidents(dataset, { ids: ["zklite-*", "zookeper-2845"] });
      } catch (caught) {
        return caught;
      }
    })();
    expect(DistDebugError.isInstance(error)).toBe(true);
    expect((error as DistDebugError).code).toBe("INVALID_ARGUMENT");
    expect((error as Error).message).toContain('"zookeper-2845"');
  });

  it("treats every character but * and ? literally (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }).filter((s) => !/[*?]/.test(s)),
        fc.string({ maxLength: 20 }),
        (glob, other) => {
          expect(globToRegExp(glob).test(glob)).toBe(true);
          expect(globToRegExp(glob).test(other)).toBe(other === glob);
        },
      ),
    );
  });
});

describe("incidentTask", () => {
  it("carries the report and artifacts and nothing that leads to gold or the fix", async () => {
    for (const entry of dataset.incidents) {
      const task = await incidentTask(entry);
      const gold = (await loadGold(entry))!;
      expect(Object.keys(task).sort()).toEqual(
        ["artifacts", "incidentId", "report", "system", "title", "workspace"].sort(),
      );
      expect(task.report).toBe(await readFile(join(entry.dir, "report.md"), "utf8"));
      expect(task.artifacts.map((artifact) => artifact.path)).toEqual(
        entry.incident.artifacts.map((artifact) => artifact.path),
      );
      const text = JSON.stringify(task);
      expect(text).not.toContain(gold.fix.commit);
      expect(text).not.toContain(entry.incident.repository.buggyCommit);
      expect(text).not.toContain(entry.dir);
      for (const block of gold.blocks) expect(text).not.toContain(block.note ?? "\u0000");
      expect(text).not.toContain("gold");
    }
  });

  it("writes the task files an agent reads", async () => {
    const task = await incidentTask(dataset.incidents[2]!);
    const dir = await testdir();
    const written = await writeTaskFiles(task, dir);
    expect(written).toEqual(["report.md", ...task.artifacts.map((artifact) => artifact.path)]);
    expect(await readFile(join(dir, "stack-traces/raftkvd-3-panic.txt"), "utf8")).toContain(
      "raft.(*raftLog).slice",
    );
  });

  it("writes task.json, a valid distdebug.task/1 file listing the task folder", async () => {
    const task = await incidentTask(dataset.incidents[2]!);
    const dir = await testdir();
    const manifest = await writeAgentTaskFolder(task, dir);
    const written = parseTaskManifest(await readFile(join(dir, "task.json")));
    expect(written).toEqual(manifest);
    expect(written.artifacts.map((artifact) => artifact.path)).toEqual(
      task.artifacts.map((artifact) => artifact.path),
    );
    expect(JSON.stringify(written)).not.toContain("gold");
  });

  it("names an opaque task id in task.json, never the incident id, and a fresh one each time", async () => {
    const task = await incidentTask(dataset.incidents[2]!);
    const first = await writeAgentTaskFolder(task, await testdir());
    const second = await writeAgentTaskFolder(task, await testdir());
    expect(first.id).toMatch(/^task-[0-9a-f]{16}$/);
    expect(second.id).not.toBe(first.id);
    expect(JSON.stringify(first).toLowerCase()).not.toContain(task.incidentId);
    const chosen = await writeAgentTaskFolder(task, await testdir(), { taskId: "task-given" });
    expect(chosen.id).toBe("task-given");
  });
});

describe("datasetDigest", () => {
  it("is the same for a copy elsewhere and changes with any byte", async () => {
    const dir = await testdir();
    await cp(examples, dir, { recursive: true });
    expect(await datasetDigest(dir)).toBe(dataset.digest);
    const path = join(dir, "tinykv-58/logs/client-bench.log");
    await writeFile(path, `${await readFile(path, "utf8")} `);
    expect(await datasetDigest(dir)).not.toBe(dataset.digest);
  });
});
