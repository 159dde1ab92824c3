import { readdir, readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { repoRoot } from "@distdebug/test-utils";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The package table of ARCHITECTURE.md as data: who may import whom. Arrows point from
 * importer to imported; `"*"` is anything. Third-party packages a row names are listed too;
 * every other third-party import is refused (node builtins are always allowed).
 */
const TABLE: Record<string, { packages: readonly string[] | "*"; thirdParty: readonly string[] }> =
  {
    "@distdebug/schema": { packages: [], thirdParty: ["zod", "yaml"] },
    // tree-sitter itself only under its alias `tree-sitter-runtime` (a grammar's optional peer
    // `tree-sitter` would otherwise make npm install a second one).
    "@distdebug/evaluator": {
      packages: ["@distdebug/schema"],
      thirdParty: ["tree-sitter-runtime", "tree-sitter-*"],
    },
    "@distdebug/workspace": { packages: ["@distdebug/schema"], thirdParty: ["isomorphic-git"] },
    "@distdebug/sandbox": { packages: ["@distdebug/schema"], thirdParty: [] },
    "@distdebug/stats": { packages: ["@distdebug/schema"], thirdParty: [] },
    "@distdebug/results": { packages: ["@distdebug/schema"], thirdParty: [] },
    // curation (`verifyIncident`) maps a fix to gold blocks with the evaluator
    "@distdebug/dataset": {
      packages: ["@distdebug/schema", "@distdebug/workspace", "@distdebug/evaluator"],
      thirdParty: [],
    },
    "@distdebug/agents": {
      packages: ["@distdebug/schema", "@distdebug/sandbox"],
      // the model clients; yaml for the mock model's script of replies
      thirdParty: ["@anthropic-ai/sdk", "openai", "yaml"],
    },
    "@distdebug/runner": {
      packages: [
        "@distdebug/schema",
        "@distdebug/evaluator",
        "@distdebug/workspace",
        "@distdebug/sandbox",
        "@distdebug/stats",
        "@distdebug/results",
        "@distdebug/dataset",
        "@distdebug/agents",
      ],
      thirdParty: [],
    },
    "@distdebug/submission": {
      packages: [
        "@distdebug/schema",
        "@distdebug/evaluator",
        "@distdebug/stats",
        "@distdebug/results",
        "@distdebug/dataset",
        "@distdebug/runner",
      ],
      thirdParty: [],
    },
    "@distdebug/report": {
      packages: ["@distdebug/schema", "@distdebug/stats", "@distdebug/results"],
      thirdParty: [],
    },
    // `k8s job` builds its manifest with the Kubernetes schemas and prints YAML.
    distdebug: { packages: "*", thirdParty: ["kubernetes-models", "yaml"] },
    // a leaf below every package: temp dirs, git repositories, loopback servers
    "@distdebug/test-utils": {
      packages: ["@distdebug/schema"],
      thirdParty: ["isomorphic-git", "vitest"],
    },
    // fixtures that need the pipeline (a scored results folder), above runner
    "@distdebug/test-fixtures": {
      packages: [
        "@distdebug/schema",
        "@distdebug/dataset",
        "@distdebug/runner",
        "@distdebug/test-utils",
      ],
      thirdParty: [],
    },
  };

/**
 * What test files (and `src/testing/`) may import besides their package's row: test-utils
 * everywhere; test-fixtures (it loads the pipeline) only where the row allows the runner.
 */
function testPackageAllowed(importer: string, imported: string): boolean {
  if (imported === "@distdebug/test-utils") return true;
  const packages = TABLE[importer]?.packages;
  return (
    imported === "@distdebug/test-fixtures" &&
    (packages === "*" || packages?.includes("@distdebug/runner") === true)
  );
}

interface Package {
  name: string;
  dir: string;
  manifest: { files?: string[] } & { [field: string]: unknown };
}

const packagesDir = join(repoRoot, "packages");
const builtins = new Set(builtinModules);

async function readPackages(): Promise<Package[]> {
  const found: Package[] = [];
  for (const entry of (await readdir(packagesDir, { withFileTypes: true })).sort()) {
    if (!entry.isDirectory()) continue;
    const dir = join(packagesDir, entry.name);
    const text = await readFile(join(dir, "package.json"), "utf8").catch(() => undefined);
    if (text === undefined) continue;
    const manifest = JSON.parse(text) as Package["manifest"] & { name: string };
    found.push({ name: manifest.name, dir, manifest });
  }
  return found;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (/\.(ts|mts|mjs|js)$/.test(entry.name)) out.push(path);
  }
  return out.sort();
}

/** The names of one dependency field of a package.json. */
function depsOf(pkg: Package, ...fields: string[]): string[] {
  return fields.flatMap((field) => Object.keys((pkg.manifest[field] ?? {}) as object));
}

/** Tests and the helpers only tests use (`src/testing/`, which the build leaves out). */
function isTestFile(pkg: Package, file: string): boolean {
  return /\.test\.ts$/.test(file) || file.startsWith(join(pkg.dir, "src/testing") + sep);
}

/** The package a bare specifier names: `@scope/name/sub` -> `@scope/name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

function matches(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) =>
    pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern,
  );
}

function mayImport(importer: string, imported: string, isTest: boolean): boolean {
  const row = TABLE[importer];
  if (!row) return false;
  if (imported.startsWith("@distdebug/") || imported === "distdebug") {
    if (isTest && testPackageAllowed(importer, imported)) return true;
    return imported === importer || row.packages === "*" || row.packages.includes(imported);
  }
  return isTest || matches(imported, row.thirdParty);
}

/** Every arrow of one source file that the table forbids, one line each. */
function forbiddenImports(pkg: Package, packages: Package[], file: string, text: string) {
  const isTest = isTestFile(pkg, file);
  const shown = relative(repoRoot, file);
  const problems: string[] = [];
  for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
    if (specifier.startsWith("node:") || builtins.has(specifier)) continue;
    if (specifier.startsWith(".")) {
      const target = resolve(dirname(file), specifier);
      const owner = packages.find((other) => target.startsWith(other.dir + sep));
      if (owner !== pkg)
        problems.push(`${shown}: ${specifier} reaches into ${owner?.name ?? "another folder"}`);
      continue;
    }
    const imported = packageOf(specifier);
    if (/\/(src\/)?internal(\/|$)/.test(specifier.slice(imported.length)))
      problems.push(`${shown}: ${specifier} is another package's internal module`);
    else if (!mayImport(pkg.name, imported, isTest))
      problems.push(`${shown}: ${pkg.name} may not import ${imported}`);
  }
  return problems;
}

describe("the package table of ARCHITECTURE.md", () => {
  it("names every package", async () => {
    const names = (await readPackages()).map((pkg) => pkg.name).sort();
    expect(names).toEqual(Object.keys(TABLE).sort());
  });

  it("allows every dependency in every package.json", async () => {
    const problems: string[] = [];
    for (const pkg of await readPackages()) {
      for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
        for (const name of depsOf(pkg, field))
          if (!mayImport(pkg.name, name, false))
            problems.push(`${pkg.name} ${field}: ${name} is not allowed`);
      }
      for (const name of depsOf(pkg, "devDependencies"))
        if (name.startsWith("@distdebug/") && !mayImport(pkg.name, name, true))
          problems.push(`${pkg.name} devDependencies: ${name} is not allowed`);
    }
    expect(problems).toEqual([]);
  });

  it("allows every import of every source file, and none reaches another package's internals", async () => {
    const packages = await readPackages();
    const problems: string[] = [];
    for (const pkg of packages) {
      const declared = new Set(
        depsOf(pkg, "dependencies", "peerDependencies", "optionalDependencies", "devDependencies"),
      );
      for (const file of await sourceFiles(join(pkg.dir, "src"))) {
        const text = await readFile(file, "utf8");
        problems.push(...forbiddenImports(pkg, packages, file, text));
        // A workspace package imported must be declared, or a plain install would miss it.
        for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
          const imported = packageOf(fileName);
          if (
            imported.startsWith("@distdebug/") &&
            imported !== pkg.name &&
            !declared.has(imported)
          )
            problems.push(`${relative(repoRoot, file)}: ${imported} is not in package.json`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("keeps tests and src/testing out of every build and every published package", async () => {
    const problems: string[] = [];
    for (const pkg of await readPackages()) {
      const text = await readFile(join(pkg.dir, "tsconfig.build.json"), "utf8").catch(() => "");
      if (!text) continue;
      const exclude = (JSON.parse(text) as { exclude?: string[] }).exclude ?? [];
      for (const pattern of ["src/**/*.test.ts", "src/testing"])
        if (!exclude.includes(pattern))
          problems.push(`${pkg.name}: tsconfig.build.json does not exclude ${pattern}`);
      const files = pkg.manifest.files ?? [];
      for (const pattern of ["!src/**/*.test.ts", "!src/testing"])
        if (files.includes("src") && !files.includes(pattern))
          problems.push(`${pkg.name}: package.json files does not list ${pattern}`);
    }
    expect(problems).toEqual([]);
  });

  it("refuses a forbidden arrow, a relative path into another package and an internal module", () => {
    const packages = [
      { name: "@distdebug/dataset", dir: join(packagesDir, "dataset"), manifest: {} },
      { name: "@distdebug/runner", dir: join(packagesDir, "runner"), manifest: {} },
    ];
    const file = join(packagesDir, "dataset/src/x.ts");
    const text = [
      'import git from "isomorphic-git";',
      'import { runBenchmark } from "@distdebug/runner";',
      'import { a } from "../../runner/src/run-attempt.js";',
      'import { b } from "@distdebug/workspace/src/internal/materialize.js";',
      'import { c } from "@distdebug/workspace";',
      'import { d } from "./y.js";',
    ].join("\n");
    const testFile = join(packagesDir, "dataset/src/testing/z.ts");
    const testText = [
      'import { testdir } from "@distdebug/test-utils";',
      'import { baselineResults } from "@distdebug/test-fixtures";',
    ].join("\n");
    expect(forbiddenImports(packages[0]!, packages, testFile, testText)).toEqual([
      "packages/dataset/src/testing/z.ts: @distdebug/dataset may not import @distdebug/test-fixtures",
    ]);
    expect(forbiddenImports(packages[0]!, packages, file, text)).toEqual([
      "packages/dataset/src/x.ts: @distdebug/dataset may not import isomorphic-git",
      "packages/dataset/src/x.ts: @distdebug/dataset may not import @distdebug/runner",
      "packages/dataset/src/x.ts: ../../runner/src/run-attempt.js reaches into @distdebug/runner",
      "packages/dataset/src/x.ts: @distdebug/workspace/src/internal/materialize.js is another package's internal module",
    ]);
  });
});

describe("the error rules of STYLE.md", () => {
  it("library code throws DistDebugError only: no bare throw new Error, no other Error subclass", async () => {
    const problems: string[] = [];
    for (const pkg of await readPackages()) {
      for (const file of await sourceFiles(join(pkg.dir, "src"))) {
        if (isTestFile(pkg, file)) continue;
        const lines = (await readFile(file, "utf8")).split("\n");
        lines.forEach((line, index) => {
          const where = `${relative(repoRoot, file)}:${index + 1}`;
          if (line.includes("throw new Error(")) problems.push(`${where}: throw new Error(`);
          const subclass = /\bextends (Error|DistDebugError)\b/.test(line);
          if (subclass && !file.endsWith(join("schema", "src", "errors.ts")))
            problems.push(`${where}: ${line.trim()}`);
        });
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("the root package.json scripts", () => {
  it("run pnpm through scripts/pnpm.sh, so npm run build works without a global pnpm", async () => {
    const manifest = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const bare = Object.entries(manifest.scripts).filter(([, command]) =>
      /(^|&&|;|\|)\s*pnpm\s/.test(command),
    );
    expect(bare).toEqual([]);
    expect(manifest.scripts.build).toMatch(/^bash scripts\/pnpm\.sh /);
  });
});
