import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  directoryReader,
  suggestGoldBlocksFromDiff,
  suggestGoldBlocksFromTrees,
} from "@distdebug/evaluator";
import { serialize } from "@distdebug/schema";
import { defineCommand, optionalString, requireString, usageError } from "../command.js";
import { requireDirectory } from "./evaluate.js";

export default defineCommand({
  usage: "label suggest --buggy <dir> (--fixed <dir> | --diff <file>)",
  description:
    "Proposes gold blocks from a fix: modified and removed lines map to their atoms at the buggy revision, a pure insertion to the atoms before and after it; new files are reported. Prints JSON { blocks, newFiles, deletedFiles, unlabeledFiles } for review with distdebug atoms.",
  options: {
    buggy: { type: "string", description: "source tree at the buggy revision" },
    fixed: { type: "string", description: "source tree at the fixed revision" },
    diff: { type: "string", description: "unified diff of the fix (instead of --fixed)" },
  },
  async run(args, io) {
    const buggyDir = resolve(io.cwd, requireString(args, "buggy"));
    const fixed = optionalString(args, "fixed");
    const diff = optionalString(args, "diff");
    if ((fixed === undefined) === (diff === undefined))
      throw usageError("give either --fixed <dir> or --diff <file>");
    await requireDirectory(buggyDir, "buggy");
    let suggestion: Awaited<ReturnType<typeof suggestGoldBlocksFromTrees>>;
    if (fixed !== undefined) {
      const fixedDir = resolve(io.cwd, fixed);
      await requireDirectory(fixedDir, "fixed");
      suggestion = await suggestGoldBlocksFromTrees({ buggyDir, fixedDir });
    } else {
      const diffFile = diff as string;
      const text = await readFile(resolve(io.cwd, diffFile), "utf8").catch((error: unknown) => {
        throw usageError(
          `--diff ${diffFile}: cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
        );
      });
      suggestion = await suggestGoldBlocksFromDiff({
        diff: text,
        readBuggy: directoryReader(buggyDir),
        source: diffFile,
      });
    }
    io.stdout(serialize(suggestion));
    if (!args.values.json && suggestion.newFiles.length > 0)
      io.stderr(`note: new files map to no gold block: ${suggestion.newFiles.join(", ")}\n`);
    return 0;
  },
});
