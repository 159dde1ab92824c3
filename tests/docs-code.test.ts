import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { parseAnyFile } from "@distdebug/schema";
import { describe, expect, it } from "vitest";
import {
  blockFile,
  blocks,
  docsScratchForFile,
  pages,
  root,
  shBlocks,
  tsBlocks,
  tsxLoader,
  where,
} from "./docs-blocks.js";

const scratch = docsScratchForFile();

describe("docs code blocks", () => {
  it("has pages with code blocks of every checked kind", () => {
    expect(pages.length).toBeGreaterThanOrEqual(10);
    expect(tsBlocks.length).toBeGreaterThan(5);
    expect(shBlocks.length).toBeGreaterThan(5);
    expect(blocks.some((block) => block.lang === "json")).toBe(true);
  });

  it("json blocks parse, and DistDebug files among them validate", () => {
    const failures: string[] = [];
    for (const block of blocks.filter((candidate) => candidate.lang === "json")) {
      try {
        const value = JSON.parse(block.code) as { format?: unknown };
        if (typeof value.format === "string" && value.format.startsWith("distdebug."))
          parseAnyFile(value, { source: where(block) });
      } catch (error) {
        failures.push(`${where(block)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("ts blocks type-check against the workspace packages", { timeout: 240_000 }, async () => {
    for (const block of tsBlocks)
      await writeFile(blockFile(scratch().dir, block), `${block.code}export {};\n`);
    const result = spawnSync(
      process.execPath,
      [join(root, "node_modules/typescript/bin/tsc"), "-p", join(scratch().dir, "tsconfig.json")],
      { encoding: "utf8", cwd: scratch().dir },
    );
    // Only errors in the blocks count; another package's work in progress is not the docs' fault.
    const ours = result.stdout
      .split("\n")
      .filter((line) => line.startsWith("blocks/"))
      .map((line) => {
        const match = /^blocks\/(.+?)\.mts\((\d+),\d+\): (.*)$/.exec(line);
        const block = tsBlocks.find((candidate) =>
          blockFile(scratch().dir, candidate).endsWith(`/${match?.[1]}.mts`),
        );
        return block && match
          ? `${block.page}:${block.line + Number(match[2])}: ${match[3]}`
          : line;
      });
    expect(ours).toEqual([]);
  });

  it.each(
    tsBlocks
      .filter((block) => block.flags.includes("run"))
      .map((block) => [where(block), block] as const),
  )("ts run block %s runs", { timeout: 60_000 }, async (_name, block) => {
    const file = blockFile(scratch().dir, block);
    await writeFile(file, `${block.code}export {};\n`);
    const cwd = await scratch().project(
      `ts-${block.page.replace(/[^A-Za-z0-9]+/g, "_")}-${block.line}`,
    );
    const result = spawnSync(
      process.execPath,
      ["--conditions=@distdebug/source", "--import", tsxLoader, file],
      { encoding: "utf8", cwd, env: scratch().env() },
    );
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("sh no-run blocks are valid bash and name only real distdebug commands", {
    timeout: 120_000,
  }, () => {
    const failures: string[] = [];
    for (const block of shBlocks.filter((candidate) => candidate.flags.includes("no-run"))) {
      const syntax = spawnSync("bash", ["-n", "-c", block.code], { encoding: "utf8" });
      if (syntax.status !== 0) failures.push(`${where(block)}: ${syntax.stderr.trim()}`);
      for (const match of block.code.matchAll(
        /(?:^|[\s;&|(])distdebug((?:\s+[a-z][a-z0-9-]*){1,2})/gm,
      )) {
        const words = match[1]!.trim().split(/\s+/);
        const help = spawnSync(join(scratch().dir, "bin/distdebug"), [...words, "--help"], {
          encoding: "utf8",
          env: scratch().env(),
        });
        if (help.status !== 0)
          failures.push(`${where(block)}: distdebug ${words.join(" ")}: ${help.stderr.trim()}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("package pages name only real exports in their API tables", async () => {
    const failures: string[] = [];
    for (const page of pages.filter((path) => dirname(path).endsWith("docs/packages"))) {
      const name = page.slice(page.lastIndexOf("/") + 1, -3);
      if (name === "cli") continue;
      const index = await readFile(join(root, "packages", name, "src/index.ts"), "utf8");
      const exported = new Set(
        [...index.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((match) =>
          match[1]!.split(",").map((item) =>
            item
              .trim()
              .replace(/^type\s+/, "")
              .split(/\s+as\s+/)
              .pop()!
              .trim(),
          ),
        ),
      );
      const text = await readFile(page, "utf8");
      for (const row of text.split("\n").filter((line) => line.startsWith("| `"))) {
        const first = row.split("|")[1] ?? "";
        for (const [, identifier] of first.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g))
          if (!exported.has(identifier!))
            failures.push(`${relative(root, page)}: ${identifier} is not exported`);
      }
    }
    expect(failures).toEqual([]);
  });
});
