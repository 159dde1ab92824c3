import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DistDebugError } from "@distdebug/schema";
import { catalogDatasetDir, exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { checkDataset, loadDataset } from "./load-dataset.js";
import type { InvalidDatasetData } from "./problems.js";

const examples = exampleDatasetDir();
const catalog = catalogDatasetDir();

async function editJson(path: string, edit: (value: Record<string, unknown>) => void) {
  const value = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
  edit(value);
  await writeFile(path, JSON.stringify(value, null, 2));
}

/** A dataset folder holding a copy of one example incident. */
async function oneIncidentCopy(id: string): Promise<string> {
  const dir = await testdir();
  await cp(join(examples, id), join(dir, id), { recursive: true });
  await writeFile(
    join(dir, "dataset.json"),
    JSON.stringify({ format: "distdebug.dataset/1", name: "x", version: "1", incidents: [id] }),
  );
  return dir;
}

describe("the example dataset", () => {
  it("loads with the counts the issue requires", async () => {
    const check = await checkDataset(examples);
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    const { counts } = check;
    expect(counts.incidents).toBe(11);
    expect(counts.scorable).toBe(11);
    expect(counts.remote).toBe(0);
    expect(counts.languages).toEqual({
      java: 2,
      go: 2,
      rust: 1,
      python: 1,
      cpp: 1,
      scala: 2,
      c: 2,
    });
    expect(counts.categories).toMatchObject({
      logic: 4,
      concurrency: 3,
      "error-handling": 3,
      resource: 1,
    });
    expect(counts.multiBlock).toBe(6);
    expect(counts.reportWithoutCausalMethod).toBe(9);
    expect(counts.withoutUsableStackTrace).toBe(9);
    // the floors
    expect(counts.multiBlock).toBeGreaterThanOrEqual(4);
    expect(counts.categories.concurrency).toBeGreaterThanOrEqual(3);
    expect(counts.categories["error-handling"]).toBeGreaterThanOrEqual(3);
    expect(counts.reportWithoutCausalMethod).toBeGreaterThanOrEqual(6);
    expect(counts.withoutUsableStackTrace).toBeGreaterThanOrEqual(5);
  });

  it("keeps incidents in dataset.json order and has a stable digest", async () => {
    const dataset = await loadDataset(examples);
    expect(dataset.incidents.map((entry) => entry.id)).toEqual(dataset.index.incidents);
    expect(dataset.digest).toMatch(/^[0-9a-f]{64}$/);
    expect((await loadDataset(examples)).digest).toBe(dataset.digest);
    for (const entry of dataset.incidents) {
      expect(entry.repository.kind).toBe("history");
      expect(Object.keys(entry)).not.toContain("gold");
    }
  });
});

describe("the catalog", () => {
  it("accepts every entry as a scorable remote incident that needs network", async () => {
    const check = await checkDataset(catalog);
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
    const entry = check.dataset!.incidents.find((item) => item.id === "zookeeper-2845")!;
    expect(entry.repository).toEqual({
      kind: "remote",
      url: "https://github.com/apache/zookeeper",
      buggyCommit: "f0b67b6e49acec5f022bee25e08f82a29572c97a",
    });
    expect(check.counts.scorable).toBe(check.counts.incidents);
    expect(check.counts.remote).toBe(check.counts.incidents);
    expect(check.notes.join("\n")).toMatch(/zookeeper-2845: .*needs network/);
  });

  it("accepts an entry without gold and says it cannot be scored", async () => {
    const dir = await testdir();
    await cp(catalog, dir, { recursive: true });
    await rm(join(dir, "zookeeper-2845/gold.json"));
    const check = await checkDataset(dir);
    expect(check.ok).toBe(true);
    const entry = check.dataset!.incidents.find((item) => item.id === "zookeeper-2845")!;
    expect(entry.scorable).toBe(false);
    expect(check.notes.join("\n")).toMatch(/zookeeper-2845: no gold\.json.*cannot score/);
  });
});

describe("a broken copy", () => {
  it("lists every problem in one run", async () => {
    const dir = await testdir();
    await cp(examples, dir, { recursive: true });
    // missing report
    await rm(join(dir, "taskq-219/report.md"));
    // gold outside the file
    await editJson(join(dir, "raftkv-311/gold.json"), (gold) => {
      (gold.blocks as { endLine: number }[])[0]!.endLine = 5000;
    });
    // duplicate id
    await editJson(join(dir, "dataset.json"), (index) => {
      (index.incidents as string[]).push("tinykv-58");
    });
    // bad JSON
    await writeFile(join(dir, "swimlite-27/incident.json"), '{"format": "distdebug.incident/1", ');
    // a schema error deep inside gold.json
    await editJson(join(dir, "leasekv-77/gold.json"), (gold) => {
      (gold.blocks as { startLine: unknown }[])[1]!.startLine = "48";
    });

    const check = await checkDataset(dir);
    expect(check.ok).toBe(false);
    const lines = check.problems.map((p) => `${p.file} ${p.path ?? ""} ${p.message}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^taskq-219\/report\.md +the report named by incident\.json \$\.report is missing/,
        ),
        expect.stringMatching(
          /^raftkv-311\/gold\.json \$\.blocks\[0\]\.endLine expected a line <= \d+ \(the length of raft\/log\.go\), found 5000/,
        ),
        expect.stringMatching(
          /^dataset\.json \$\.incidents\[11\] duplicate incident id "tinykv-58" \(also at \$\.incidents\[4\]\)/,
        ),
        expect.stringMatching(/^swimlite-27\/incident\.json +not valid JSON/),
        expect.stringMatching(
          /^leasekv-77\/gold\.json \$\.blocks\[1\]\.startLine expected a value of type number/,
        ),
      ]),
    );
    expect(check.problems).toHaveLength(5);

    const error = await loadDataset(dir).catch((caught: unknown) => caught);
    expect(DistDebugError.isInstance(error)).toBe(true);
    const failure = error as DistDebugError<InvalidDatasetData>;
    expect(failure.code).toBe("INVALID_DATASET");
    expect(failure.data!.problems).toHaveLength(5);
    expect(failure.message).toContain("5 problems");
    expect(failure.message).toContain("taskq-219/report.md");
  });

  it("reports commit ids that do not match the repository data, and a bad edit", async () => {
    const dir = await oneIncidentCopy("zklite-142");
    await editJson(join(dir, "zklite-142/incident.json"), (incident) => {
      (incident.repository as { buggyCommit: string }).buggyCommit = "a".repeat(40);
    });
    let fixIndex = -1;
    await editJson(join(dir, "zklite-142/repo/history.json"), (history) => {
      const commits = history.commits as { role?: string; edits?: { find: string }[] }[];
      fixIndex = commits.findIndex((commit) => commit.role === "fix");
      commits[fixIndex]!.edits![1]!.find = "no such text";
    });
    const check = await checkDataset(dir);
    const lines = check.problems.map((p) => `${p.file} ${p.path ?? ""} ${p.message}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^zklite-142\/incident\.json \$\.repository\.buggyCommit expected [0-9a-f]{40} \(the buggy commit built from repo\/history\.json\), found a{40}/,
        ),
        expect.stringMatching(
          new RegExp(
            `^zklite-142/repo/history\\.json \\$\\.commits\\[${fixIndex}\\]\\.edits\\[1\\]\\.find the text must occur exactly once`,
          ),
        ),
        // the fix commit changed, so gold.json's fix commit no longer matches either
        expect.stringMatching(/^zklite-142\/gold\.json \$\.fix\.commit expected [0-9a-f]{40}/),
      ]),
    );
  });

  it("reports schema problems of repo/history.json with their JSON paths", async () => {
    const dir = await oneIncidentCopy("zklite-142");
    await editJson(join(dir, "zklite-142/repo/history.json"), (history) => {
      (history.commits as { date: string }[])[0]!.date = "yesterday";
    });
    const problems = (await checkDataset(dir)).problems;
    expect(problems).toContainEqual(
      expect.objectContaining({
        file: "zklite-142/repo/history.json",
        path: "$.commits[0].date",
        message:
          'expected an ISO 8601 date and time with an offset, such as 2026-12-02T18:19:00Z, found the string "yesterday"',
      }),
    );
  });

  it("reports a tree that the history does not produce and an artifact outside the folder", async () => {
    const dir = await oneIncidentCopy("swimlite-27");
    await writeFile(join(dir, "swimlite-27/repo/tree/src/extra.c"), "int extra;\n");
    await editJson(join(dir, "swimlite-27/incident.json"), (incident) => {
      (incident.artifacts as { path: string }[])[0]!.path = "../zklite-142/gold.json";
    });
    const lines = (await checkDataset(dir)).problems.map(
      (p) => `${p.file} ${p.path ?? ""} ${p.message}`,
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        "swimlite-27/repo/history.json $.commits[5].role the buggy commit lacks files of tree/: src/extra.c",
        'swimlite-27/incident.json $.artifacts[0].path expected a path inside the incident folder, found "../zklite-142/gold.json"',
      ]),
    );
  });

  it("reports a missing dataset.json, an unlisted folder and a missing incident folder", async () => {
    const empty = await testdir();
    expect((await checkDataset(empty)).problems).toEqual([
      { file: "dataset.json", message: "the file is missing" },
    ]);
    const dir = await testdir({
      "dataset.json": JSON.stringify({
        format: "distdebug.dataset/1",
        name: "x",
        version: "1",
        incidents: ["gone-1"],
      }),
      "stray/incident.json": "{}",
    });
    const check = await checkDataset(dir);
    expect(check.problems).toEqual(
      expect.arrayContaining([
        { file: "stray", message: "a folder that dataset.json $.incidents does not list" },
        { file: "gone-1", message: "the incident folder listed in dataset.json is missing" },
      ]),
    );
  });
});
