import { resolve } from "node:path";
import { formatLeaderboard } from "@distdebug/report";
import { mergeResults } from "@distdebug/results";
import { scoreResults } from "@distdebug/runner";
import { serialize } from "@distdebug/schema";
import { defineCommand, requireString, usageError } from "../command.js";

export default defineCommand({
  usage: "merge <results dir>... --out <dir> [--copy]",
  description:
    "Merges results folders of one run config (the shards of distdebug run --shard i/n, or runs on disjoint incidents) into --out, then scores it as distdebug score does. Refuses folders of different configs, datasets or harness versions, an attempt present in two folders and a shard given twice, naming them. Attempt folders are hard-linked (or copied) atomically, so an interrupted merge resumes. Lists gaps (missing shards, incidents short of attempts) and exits 1 when there are any.",
  options: {
    out: { type: "string", description: "the merged results folder" },
    copy: { type: "boolean", description: "copy files instead of hard-linking them" },
  },
  async run(args, io) {
    if (args.positionals.length === 0) throw usageError("name the results folders to merge");
    const outDir = resolve(io.cwd, requireString(args, "out"));
    const sources = args.positionals.map((dir) => resolve(io.cwd, dir));
    if (sources.includes(outDir)) throw usageError("--out must not be one of the merged folders");
    const merged = await mergeResults({
      sources,
      outDir,
      files: args.values.copy ? "copy" : "link",
      ...(io.signal ? { signal: io.signal } : {}),
    });
    const scored = await scoreResults({ outDir });
    if (args.values.json) {
      io.stdout(
        serialize({
          merged: merged.merged,
          kept: merged.kept,
          gaps: merged.gaps,
          summary: scored.summary,
        }),
      );
    } else {
      io.stderr(`${merged.merged} attempts merged, ${merged.kept} already in ${outDir}\n`);
      for (const gap of merged.gaps) io.stderr(`gap: ${gap.what}\n`);
      io.stdout(formatLeaderboard([scored.summary], { format: "text" }));
    }
    return merged.gaps.length > 0 ? 1 : 0;
  },
});
