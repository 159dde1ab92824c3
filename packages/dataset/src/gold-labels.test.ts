import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { diffLines } from "@distdebug/evaluator";
import { RepoHistory } from "@distdebug/schema";
import { exampleDatasetDir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { loadGold } from "./gold.js";
import { readTree } from "./internal/files.js";
import { replayHistory } from "./internal/replay.js";
import { loadDataset } from "./load-dataset.js";

const examples = exampleDatasetDir();

describe("gold labels of the example dataset", async () => {
  const dataset = await loadDataset(examples);
  for (const entry of dataset.incidents) {
    it(`${entry.id}: each block covers lines the fix changes or its insertion point`, async () => {
      const gold = (await loadGold(entry))!;
      const history = RepoHistory.parse(
        JSON.parse(await readFile(join(entry.dir, "repo/history.json"), "utf8")),
      );
      const tree = await readTree(join(entry.dir, "repo/tree"));
      const replay = replayHistory(history, tree, "history.json");
      const buggy = replay.buggy!.files;
      const fixed = replay.fix!.files;
      expect(replay.fix!.oid).toBe(gold.fix.commit);
      for (const block of gold.blocks) {
        const edits = diffLines(
          buggy.get(block.path)!.split("\n"),
          (fixed.get(block.path) ?? "").split("\n"),
        );
        const inBlock = (line: number) => line >= block.startLine && line <= block.endLine;
        const touched =
          edits.removed.some(inBlock) ||
          edits.insertions.some((after) => inBlock(after) || inBlock(after + 1));
        expect(touched, `${block.path}:${block.startLine}-${block.endLine}`).toBe(true);
      }
      // every file the fix changes outside tests is labeled
      const changedFiles = [...fixed.keys()].filter((path) => buggy.get(path) !== fixed.get(path));
      const labeled = new Set(gold.blocks.map((block) => block.path));
      for (const path of changedFiles.filter((p) => !/test/i.test(p)))
        expect(labeled).toContain(path);
    });

    it(`${entry.id}: no needle occurs in the buggy tree, and the issue key is in the history`, async () => {
      const gold = (await loadGold(entry))!;
      const tree = await readTree(join(entry.dir, "repo/tree"));
      for (const [path, content] of tree)
        for (const needle of gold.needles)
          expect(content.includes(needle), `${needle} in ${path}`).toBe(false);
      const history = await readFile(join(entry.dir, "repo/history.json"), "utf8");
      expect(history).toContain(gold.needles[0]);
      expect(gold.needles[0]).toMatch(/^[A-Z]+-\d+$/);
      // the task report may name the issue key; the workspace may not
      const report = await readFile(join(entry.dir, entry.incident.report), "utf8");
      expect(report).toContain(gold.needles[0]);
    });
  }
});
