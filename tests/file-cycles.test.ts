import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { repoRoot } from "@distdebug/test-utils";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * ARCHITECTURE.md, "Seams": no circles, even inside a package; shared types get their own
 * file. Every relative import between the non-test source files of one package (type-only
 * imports and re-exports included) forms a graph that must have no cycle.
 */

const packagesDir = join(repoRoot, "packages");

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!["node_modules", "dist", "fixtures"].includes(entry.name))
        found.push(...sourceFiles(path));
    } else if (/\.(ts|mts)$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name))
      found.push(path);
  }
  return found;
}

/** The package's files that `file` imports through relative specifiers (`./x.js` -> x.ts). */
function localImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  const targets: string[] = [];
  for (const { fileName } of info.importedFiles) {
    if (!fileName.startsWith(".")) continue;
    const base = resolve(dirname(file), fileName).replace(/\.(m?js)$/, "");
    const target = [`${base}.ts`, `${base}.mts`, join(base, "index.ts")].find(existsSync);
    if (target) targets.push(target);
  }
  return targets;
}

/** Strongly connected components of more than one file, or a file importing itself. */
function importCycles(files: readonly string[]): string[][] {
  const edges = new Map(files.map((file) => [file, localImports(file)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (edges.get(file) ?? []).includes(file))
      cycles.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return cycles;
}

const packages = readdirSync(packagesDir).filter((name) =>
  existsSync(join(packagesDir, name, "src")),
);

describe("no import cycle between the files of a package", () => {
  it("finds a cycle when there is one (the detector itself)", () => {
    const dir = mkdtempSync(join(tmpdir(), "distdebug-cycles-"));
    try {
      writeFileSync(join(dir, "a.ts"), 'import type { B } from "./b.js";\nexport type A = B;\n');
      writeFileSync(join(dir, "b.ts"), 'export { type A } from "./a.js";\nexport type B = 1;\n');
      writeFileSync(join(dir, "c.ts"), 'import type { A } from "./a.js";\nexport type C = A;\n');
      expect(
        importCycles(sourceFiles(dir)).map((cycle) => cycle.map((file) => relative(dir, file))),
      ).toEqual([["a.ts", "b.ts"]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(packages)("%s", (name) => {
    const src = join(packagesDir, name, "src");
    const cycles = importCycles(sourceFiles(src)).map((cycle) =>
      cycle.map((file) => relative(src, file)).join(" <-> "),
    );
    expect(cycles, `files of packages/${name}/src that import each other in a circle`).toEqual([]);
  });
});
