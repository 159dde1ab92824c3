// @ts-check
/**
 * Blind strategies: diagnoses made without reading the report, only from the shape of the
 * repository. The evaluator's coverage rule must not reward them (EVALUATOR.md: "a strategy
 * that names code blindly reaches on average about as much of the gold as the share of the
 * repository it may name").
 *
 * A `command` agent with the line-based strategies, dependency-free so it runs inside the
 * sandbox (the CLI's blind-strategies test runs it through `distdebug run`; the blind bench,
 * bench/evaluator/blind.ts, runs it as a program):
 *
 *   node blind-agent.mjs <stride|tiles> <extensions, comma separated> [width]
 *
 * reads the repository in DISTDEBUG_WORKSPACE and writes diagnosis.json and trajectory.json to
 * DISTDEBUG_OUTPUT.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Spans a strategy names: only the first `coverageSpanCount` (20) can earn coverage. */
const SPANS = 20;

/**
 * @typedef {{ path: string, lines: string[] }} SourceFile
 * @typedef {{ path: string, startLine: number, endLine: number }} LineBlock
 */

/**
 * `count` items spread evenly over `items` (the middle of each of `count` equal parts), or
 * all of them when there are no more than `count`.
 * @template T
 * @param {readonly T[]} items
 * @param {number} count
 * @returns {T[]}
 */
function evenly(items, count) {
  if (items.length <= count) return [...items];
  return Array.from(
    { length: count },
    (_, k) => /** @type {T} */ (items[Math.floor(((k + 0.5) * items.length) / count)]),
  );
}

/**
 * The source files under `root` whose name ends with one of `extensions`, sorted by path.
 * @param {string} root
 * @param {readonly string[]} extensions
 * @returns {SourceFile[]}
 */
function readSources(root, extensions) {
  /** @type {SourceFile[]} */
  const files = [];
  /** @param {string} dir @param {string} prefix */
  const walk = (dir, prefix) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === ".git") continue;
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), path);
      else if (entry.isFile() && extensions.some((extension) => entry.name.endsWith(extension))) {
        const lines = readFileSync(join(dir, entry.name), "utf8").split("\n");
        if (lines[lines.length - 1] === "") lines.pop();
        files.push({ path, lines });
      }
    }
  };
  walk(root, "");
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Stride: `count` spans of `width` lines starting at non-blank lines spread evenly over every
 * non-blank line of every source file (width 1: single lines).
 * @param {readonly SourceFile[]} files
 * @param {number} [count]
 * @param {number} [width]
 * @returns {LineBlock[]}
 */
function stride(files, count = SPANS, width = 1) {
  /** @type {LineBlock[]} */
  const starts = [];
  for (const file of files)
    file.lines.forEach((line, at) => {
      if (line.trim() !== "")
        starts.push({
          path: file.path,
          startLine: at + 1,
          endLine: Math.min(at + width, file.lines.length),
        });
    });
  return evenly(starts, count);
}

/**
 * Tiles: every file cut into consecutive `width`-line tiles; `count` of them spread evenly.
 * @param {readonly SourceFile[]} files
 * @param {number} [count]
 * @param {number} [width]
 * @returns {LineBlock[]}
 */
function tiles(files, count = SPANS, width = 40) {
  /** @type {LineBlock[]} */
  const all = [];
  for (const file of files)
    for (let start = 1; start <= file.lines.length; start += width)
      all.push({
        path: file.path,
        startLine: start,
        endLine: Math.min(start + width - 1, file.lines.length),
      });
  return evenly(all, count);
}

/** Runs as a `command` agent. */
function main() {
  const [strategy, extensions = "", width] = process.argv.slice(2);
  if (strategy !== "stride" && strategy !== "tiles")
    throw new Error(`usage: blind-agent.mjs <stride|tiles> <extensions> [width]; got ${strategy}`);
  const files = readSources(process.env.DISTDEBUG_WORKSPACE ?? "/workspace", extensions.split(","));
  const blocks =
    strategy === "stride"
      ? stride(files, SPANS, Number(width ?? 1))
      : tiles(files, SPANS, Number(width ?? 40));
  const output = process.env.DISTDEBUG_OUTPUT ?? "/output";
  writeFileSync(
    join(output, "diagnosis.json"),
    JSON.stringify({
      format: "distdebug.diagnosis/1",
      incidentId: process.env.DISTDEBUG_INCIDENT_ID,
      blocks,
    }),
  );
  writeFileSync(
    join(output, "trajectory.json"),
    JSON.stringify({
      format: "distdebug.trajectory/1",
      agent: { name: `blind-${strategy}` },
      exitStatus: "submitted",
      usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: 0 },
      steps: [
        {
          type: "message",
          role: "assistant",
          content: `${blocks.length} ${strategy} blocks over ${files.length} files, the report unread`,
        },
      ],
    }),
  );
}

main();
