// Builds one public package into dist/: removes the old dist/, compiles src/ with
// tsconfig.build.json, then copies every runtime file tsc does not emit (the .mjs programs run
// inside the sandbox, JSON files, templates: every non-TypeScript file under src/ outside
// src/testing and tests) to the same place under dist/. `--copy <from>:<to>` copies a folder
// from outside src/ (for example a bundled dataset), <from> relative to the package and <to>
// relative to dist/. Run from the package folder: `node ../../scripts/build-package.mjs`.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";

const packageDir = process.cwd();
const srcDir = join(packageDir, "src");
const distDir = join(packageDir, "dist");

/** True for files under src/ that the package needs at run time and tsc does not emit. */
function isRuntimeAsset(path) {
  const name = relative(srcDir, path);
  if (name.startsWith("testing/") || /(^|\/)__\w+__\//.test(name)) return false;
  if (/\.test\.\w+$/.test(name)) return false;
  return !/\.(c|m)?tsx?$/.test(name);
}

function runtimeAssets(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return runtimeAssets(path);
    return entry.isFile() && isRuntimeAsset(path) ? [path] : [];
  });
}

function compile() {
  const tsc = createRequire(join(packageDir, "package.json")).resolve("typescript/bin/tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
    cwd: packageDir,
    stdio: "inherit",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function copyFolders(pairs) {
  for (const pair of pairs) {
    const [from, to] = pair.split(":");
    if (!from || !to) {
      process.stderr.write(`build-package: --copy expects <from>:<to>, found ${pair}\n`);
      process.exit(2);
    }
    cpSync(resolve(packageDir, from), join(distDir, to), { recursive: true });
  }
}

const { values } = parseArgs({ options: { copy: { type: "string", multiple: true } } });
rmSync(distDir, { recursive: true, force: true });
compile();
for (const asset of runtimeAssets(srcDir)) {
  const target = join(distDir, relative(srcDir, asset));
  mkdirSync(dirname(target), { recursive: true });
  cpSync(asset, target);
}
copyFolders(values.copy ?? []);
