// Builds the evaluator's native collector (binding.gyp) at install. The addon is optional: when
// it cannot be built (no C compiler, no node-gyp, no Node headers), the install still succeeds
// and the evaluator uses node-tree-sitter's own methods instead (same scores, slower). Set
// DISTDEBUG_SKIP_NATIVE=1 to skip the build.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));

/** The node-gyp to run: the package manager's (npm and pnpm name it), else one on the PATH. */
function nodeGyp() {
  const configured = process.env.npm_config_node_gyp;
  if (configured && existsSync(configured)) return [process.execPath, configured];
  try {
    const npm = createRequire(
      join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "package.json"),
    );
    return [process.execPath, npm.resolve("node-gyp/bin/node-gyp.js")];
  } catch {
    return ["node-gyp"];
  }
}

function main() {
  if (process.env.DISTDEBUG_SKIP_NATIVE === "1") return;
  const [command, ...prefix] = nodeGyp();
  const result = spawnSync(command, [...prefix, "rebuild"], {
    cwd: packageDir,
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
  });
  if (result.status === 0) return;
  const why =
    result.error?.message ?? `${(result.stderr ?? "").trim().split("\n").slice(-3).join(" / ")}`;
  process.stderr.write(
    `@distdebug/evaluator: the native collector was not built (${why}); scores are the same; collecting atoms and definitions after the parse takes about 2.5 times as long.\n`,
  );
}

main();
