/**
 * Differential check on real code: for every source file under the given folders, both fast
 * collectors (the evaluator's addon, and node-tree-sitter's native batches) must collect
 * exactly what the reference walk does (the search path only for trees without ERROR nodes).
 * Prints files compared per language, files with ERROR nodes, and mismatches.
 *
 *   node --conditions=@distdebug/source --import tsx bench/evaluator/differential.ts <dir>...
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { languageOf } from "@distdebug/evaluator";
import {
  addonLoaded,
  compareCollectors,
} from "../../packages/evaluator/fixtures/compare-collectors.js";

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

if (!addonLoaded) throw new Error("the evaluator's addon is not built: run the install first");
const counts = new Map<string, { files: number; walked: number; mismatches: number; mb: number }>();
const mismatches: string[] = [];
for (const root of process.argv.slice(2)) {
  for (const path of files(root)) {
    const language = languageOf(path);
    if (language === "text" || statSync(path).size > 8 * 1024 * 1024) continue;
    const text = readFileSync(path, "utf8");
    const count = counts.get(language) ?? { files: 0, walked: 0, mismatches: 0, mb: 0 };
    counts.set(language, count);
    count.files += 1;
    count.mb += text.length / 1024 / 1024;
    const addon = compareCollectors(language, text, "addon");
    const binding = compareCollectors(language, text, "binding");
    // The search path leaves trees with ERROR nodes to the walk; the addon never does.
    if (!binding.fast) count.walked += 1;
    const walked = JSON.stringify(addon.walked);
    for (const [name, fast] of [
      ["addon", addon.fast],
      ["binding", binding.fast],
    ] as const)
      if ((fast || name === "addon") && JSON.stringify(fast) !== walked) {
        count.mismatches += 1;
        mismatches.push(`${path} (${name})`);
      }
  }
}
for (const [language, count] of counts)
  console.log(
    `${language.padEnd(7)} ${String(count.files).padStart(5)} files ${count.mb.toFixed(1).padStart(6)} MB  ${String(count.walked).padStart(4)} with ERROR nodes (the search path leaves them to the walk; the addon collects them)  ${count.mismatches} mismatches`,
  );
for (const path of mismatches.slice(0, 20)) console.log(`mismatch: ${path}`);
process.exitCode = mismatches.length > 0 ? 1 : 0;
