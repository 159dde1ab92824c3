import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { catalogWithoutGold } from "../testing/catalog-copy.js";
import { repoRoot } from "../testing/spawn-cli.js";

describe("distdebug dataset check", () => {
  it("passes on the example dataset and prints its counts", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "check", "examples/dataset"], io)).toBe(0);
    const out = io.out();
    expect(out).toContain("ok     examples/dataset: distdebug-examples 1.0.0");
    expect(out).toContain("incidents        11 (11 scorable, 0 with a remote repository)");
    expect(out).toContain("languages        java 2, go 2, rust 1, python 1, cpp 1, scala 2, c 2\n");
    expect(out).toContain(
      "categories       logic 4, concurrency 3, error-handling 3, resource 1\n",
    );
    expect(out).toContain("multi-block      6 incidents with two or more gold blocks");
    expect(out).toContain(
      "clues            9 reports do not name the causal method; 9 without a usable in-project stack trace",
    );
    expect(out).toMatch(/digest +[0-9a-f]{64}/);
  });

  it("gives the counts as JSON", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "check", "examples/dataset", "--json"], io)).toBe(0);
    const result = JSON.parse(io.out());
    expect(result).toMatchObject({
      ok: true,
      name: "distdebug-examples",
      problems: [],
      counts: {
        incidents: 11,
        multiBlock: 6,
        reportWithoutCausalMethod: 9,
        withoutUsableStackTrace: 9,
        categories: { concurrency: 3, "error-handling": 3, logic: 4, resource: 1 },
      },
    });
    expect(Object.values(result.counts.languages).every((count) => (count as number) >= 1)).toBe(
      true,
    );
  });

  it("passes on the catalog, every incident scorable", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "check", "datasets/catalog"], io)).toBe(0);
    expect(io.out()).toMatch(/incidents +(\d+) \(\1 scorable, \1 with a remote repository\)/);
    expect(io.out()).not.toContain("no gold.json");
  });

  it("says that a gold-less incident cannot be scored", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "check", await catalogWithoutGold("zookeeper-2845")], io)).toBe(
      0,
    );
    expect(io.out()).toContain(
      "note   zookeeper-2845: no gold.json; runs record the diagnosis but cannot score it",
    );
  });

  it("lists every problem of a broken copy in one run and exits 1", async () => {
    const dir = await testdir();
    await cp(join(repoRoot, "examples/dataset"), dir, { recursive: true });
    await rm(join(dir, "zklite-188/report.md"));
    const goldPath = join(dir, "objstore-905/gold.json");
    const gold = JSON.parse(await readFile(goldPath, "utf8"));
    gold.blocks[1].startLine = 900;
    gold.blocks[1].endLine = 910;
    await writeFile(goldPath, JSON.stringify(gold));
    const indexPath = join(dir, "dataset.json");
    const index = JSON.parse(await readFile(indexPath, "utf8"));
    index.incidents.splice(1, 0, "raftkv-311");
    await writeFile(indexPath, JSON.stringify(index));
    await writeFile(join(dir, "streamlog-64/gold.json"), "{ not json");

    const io = captureIO({ cwd: dir });
    expect(await runCli(["dataset", "check", "."], io)).toBe(1);
    const lines = io.out().trimEnd().split("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        "error  zklite-188/report.md: the report named by incident.json $.report is missing",
        expect.stringMatching(
          /^error {2}objstore-905\/gold\.json \$\.blocks\[1\]\.endLine: expected a line <= \d+ \(the length of src\/rpc\/rpc_client\.cc\), found 910$/,
        ),
        'error  dataset.json $.incidents[3]: duplicate incident id "raftkv-311" (also at $.incidents[1])',
        expect.stringMatching(/^error {2}streamlog-64\/gold\.json: not valid JSON/),
      ]),
    );
    expect(lines.at(-1)).toBe(".: 4 problems");
    expect(lines).toHaveLength(5);

    const json = captureIO({ cwd: dir });
    expect(await runCli(["dataset", "check", ".", "--json"], json)).toBe(1);
    expect(JSON.parse(json.out()).problems).toHaveLength(4);
  });

  it("wants exactly one folder", async () => {
    const io = captureIO();
    expect(await runCli(["dataset", "check"], io)).toBe(2);
    expect(io.err()).toContain("Usage: distdebug dataset check <dir>");
  });
});
