import { readFile } from "node:fs/promises";
import { basename, dirname, relative, resolve, sep } from "node:path";
import { type AtomIndex, createEvaluator, directoryReader } from "@distdebug/evaluator";
import { defineCommand, optionalString, usageError } from "../command.js";
import { requireDirectory } from "./evaluate.js";

function render(index: AtomIndex, text: string): string {
  const lines = text.replace(/^\ufeff/, "").split("\n");
  const width = String(index.atoms.length).length + 1;
  const out = [
    `${index.path}: ${index.language}, ${index.status}, ${index.atoms.length} atoms over ${index.significantLines} significant of ${index.lineCount} lines${index.unparsableLines.length > 0 ? `, ${index.unparsableLines.length} unparsable lines (line atoms)` : ""}`,
  ];
  for (const atom of index.atoms) {
    const first = atom.lines[0] ?? atom.startLine;
    const code = (lines[first - 1] ?? "").trim().slice(0, 70);
    out.push(
      `${`#${atom.id}`.padEnd(width + 1)} ${atom.type.padEnd(28)} ${atom.lines.join(",").padEnd(12)} | ${code}`,
    );
  }
  return `${out.join("\n")}\n`;
}

export default defineCommand({
  usage: "atoms <file> [--source <dir>]",
  description:
    "Prints a source file's atoms (the units gold blocks and diagnoses resolve to) with the significant lines each owns, for reviewing labels. With --source, <file> is a path inside that source tree.",
  options: {
    source: { type: "string", description: "source tree the file path is relative to" },
  },
  async run(args, io) {
    const [file, ...rest] = args.positionals;
    if (file === undefined || rest.length > 0) throw usageError("name exactly one file");
    const sourceOption = optionalString(args, "source");
    let root: string;
    let path: string;
    if (sourceOption !== undefined) {
      root = resolve(io.cwd, sourceOption);
      await requireDirectory(root, "source");
      path = file;
    } else {
      const absolute = resolve(io.cwd, file);
      root = dirname(absolute);
      path = basename(absolute);
      const inside = relative(io.cwd, absolute);
      if (!inside.startsWith(`..${sep}`) && inside !== "..") {
        root = io.cwd;
        path = inside.split(sep).join("/");
      }
    }
    const evaluator = createEvaluator({ readFile: directoryReader(root) });
    const index = await evaluator.atoms(path);
    if (args.values.json) io.stdout(`${JSON.stringify(index, null, 2)}\n`);
    else io.stdout(render(index, await readFile(resolve(root, index.path), "utf8")));
    return 0;
  },
});
