import { readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { datasetSources } from "./dataset-sources.js";
import { loadDataset } from "./load-dataset.js";

describe("datasetSources", () => {
  it("materializes an incident's anonymized workspace once, and gives its gold blocks", async () => {
    const dataset = await loadDataset(exampleDatasetDir());
    const incident = dataset.incidents.find((entry) => entry.id === "zklite-142")!;
    const work = await testdir();
    const warnings: string[] = [];
    const sources = datasetSources({
      incidents: new Map([[incident.id, incident]]),
      cacheDir: join(work, "cache"),
      scratch: join(work, "scratch"),
      onWarning: (message) => warnings.push(message),
    });
    const [dir, again] = await Promise.all([
      sources.workspaceDir("zklite-142"),
      sources.workspaceDir("zklite-142"),
    ]);
    expect(dir).toBe(await realpath(join(work, "scratch", "zklite-142")));
    expect(again).toBe(dir);
    const file = "src/main/java/dev/zklite/server/SessionTrackerImpl.java";
    const text = await readFile(join(dir!, file), "utf8");
    // The tree the agent sees: the needle (the issue key) is scrubbed.
    expect(text).toContain("class SessionTrackerImpl");
    expect(text).not.toContain("ZKLITE-142");
    const gold = await sources.gold("zklite-142");
    expect(gold?.map((block) => [block.path, block.startLine])).toEqual([
      [file, 129],
      [file, 159],
    ]);
    expect(await sources.workspaceDir("unknown-1")).toBeUndefined();
    expect(await sources.gold("unknown-1")).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it("warns, once, when an incident's workspace cannot be prepared", async () => {
    const source = await testdir();
    const dataset = await loadDataset(exampleDatasetDir());
    const incident = dataset.incidents.find((entry) => entry.id === "zklite-142")!;
    // Its repository data folder is missing.
    const broken = { ...incident, repository: { ...incident.repository, dir: join(source, "x") } };
    const warnings: string[] = [];
    const sources = datasetSources({
      incidents: new Map([[incident.id, broken]]),
      cacheDir: join(source, "cache"),
      scratch: join(source, "scratch"),
      onWarning: (message) => warnings.push(message),
    });
    expect(await sources.workspaceDir("zklite-142")).toBeUndefined();
    expect(await sources.workspaceDir("zklite-142")).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^zklite-142: source code not shown: .*history\.json/);
  });
});
