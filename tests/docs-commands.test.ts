import { spawnSync } from "node:child_process";
import { describe, it } from "vitest";
import { docsScratchForFile, runPages, shBlocks, where } from "./docs-blocks.js";

const scratch = docsScratchForFile();

describe("docs commands", () => {
  it.each(runPages)("sh blocks of %s run in order", { timeout: 300_000 }, async (page) => {
    const cwd = await scratch().project(page.replace(/[^A-Za-z0-9]+/g, "_"));
    const pageBlocks = shBlocks.filter(
      (candidate) => candidate.page === page && !candidate.flags.includes("no-run"),
    );
    for (const block of pageBlocks) {
      const result = spawnSync("bash", ["-e", "-c", block.code], {
        encoding: "utf8",
        cwd,
        env: scratch().env(),
      });
      if (result.status !== 0)
        throw new Error(
          `${where(block)}: exited ${result.status}\n--- stdout\n${result.stdout.slice(-3000)}\n--- stderr\n${result.stderr.slice(-3000)}`,
        );
    }
  });
});
