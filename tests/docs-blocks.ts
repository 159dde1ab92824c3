/**
 * The code blocks of every page under docs/ (and the README's `ts` blocks), and a scratch folder to check them in (used by
 * docs-code.test.ts and docs-commands.test.ts, so the docs cannot rot).
 * `sh` blocks run in order per page (bash -e) in a scratch project with `distdebug` on PATH;
 * `sh no-run` blocks are syntax-checked and the commands they name must exist; `ts` blocks
 * type-check against the workspace packages; `ts run` blocks also run; `json` blocks parse,
 * and those with a DistDebug `format` validate. API tables of docs/packages/*.md may only
 * name real exports.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { repoRoot } from "@distdebug/test-utils";

export const root = repoRoot;
export const tsxLoader = join(root, "node_modules/tsx/dist/loader.mjs");

export interface Block {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  flags: string[];
  code: string;
}

async function markdownFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await markdownFiles(path)));
    else if (entry.name.endsWith(".md")) found.push(path);
  }
  return found.sort();
}

function blocksOf(page: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\S+)?(.*)$/.exec(lines[index]!);
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index]!); index++)
      body.push(lines[index]!);
    blocks.push({
      page,
      line: start + 1,
      lang: open[1] ?? "",
      flags: (open[2] ?? "").trim().split(/\s+/).filter(Boolean),
      code: `${body.join("\n")}\n`,
    });
  }
  return blocks;
}

export const pages = await markdownFiles(join(root, "docs"));
export const blocks: Block[] = [];
for (const page of pages)
  blocks.push(...blocksOf(relative(root, page), await readFile(page, "utf8")));
export const where = (block: Block) => `${block.page}:${block.line}`;
/** The README's code blocks: its `ts` blocks are checked like the docs' (its `sh` blocks install). */
const readmeBlocks = blocksOf("README.md", await readFile(join(root, "README.md"), "utf8"));
export const tsBlocks = [...blocks, ...readmeBlocks].filter(
  (block) => block.lang === "ts" || block.lang === "typescript",
);
export const shBlocks = blocks.filter((block) => block.lang === "sh" || block.lang === "bash");
export const runPages = [
  ...new Set(shBlocks.filter((b) => !b.flags.includes("no-run")).map((b) => b.page)),
];

/** A scratch folder inside the repository's node_modules (so @types/node and package deps resolve). */
export interface DocsScratch {
  dir: string;
  /** A project folder with the repository's configs, examples and scripts. */
  project(name: string): Promise<string>;
  /** The environment commands run with: distdebug on PATH, a shared cache. */
  env(): NodeJS.ProcessEnv;
  remove(): Promise<void>;
}

/** Creates the scratch folder: package links, a `distdebug` launcher, a tsconfig for blocks. */
export async function createDocsScratch(): Promise<DocsScratch> {
  await mkdir(join(root, "node_modules/.cache"), { recursive: true });
  const scratch = await mkdtemp(join(root, "node_modules/.cache/distdebug-docs-"));
  const cacheDir = join(scratch, "cache");
  await mkdir(join(scratch, "node_modules/@distdebug"), { recursive: true });
  for (const entry of await readdir(join(root, "packages"))) {
    const manifest = await readFile(join(root, "packages", entry, "package.json"), "utf8").catch(
      () => undefined,
    );
    if (!manifest) continue;
    const name = (JSON.parse(manifest) as { name: string }).name;
    await symlink(join(root, "packages", entry), join(scratch, "node_modules", name));
  }
  await mkdir(join(scratch, "bin"));
  await writeFile(
    join(scratch, "bin/distdebug"),
    `#!/bin/sh\nexec "${process.execPath}" --conditions=@distdebug/source --import "${tsxLoader}" "${join(root, "packages/cli/src/bin.ts")}" "$@"\n`,
    { mode: 0o755 },
  );
  await mkdir(join(scratch, "blocks"));
  await writeFile(
    join(scratch, "tsconfig.json"),
    JSON.stringify({
      extends: join(root, "tsconfig.base.json"),
      compilerOptions: { noEmit: true, declaration: false, sourceMap: false },
      include: ["blocks/*.mts"],
    }),
  );
  return {
    dir: scratch,
    async project(name) {
      const dir = join(scratch, "projects", name);
      await mkdir(dir, { recursive: true });
      for (const entry of ["configs", "examples", "scripts"])
        await symlink(join(root, entry), join(dir, entry));
      return dir;
    },
    env() {
      return {
        ...process.env,
        PATH: `${join(scratch, "bin")}:${process.env.PATH ?? ""}`,
        DISTDEBUG_CACHE_DIR: cacheDir,
        FORCE_COLOR: "0",
      };
    },
    async remove() {
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

export function blockFile(scratch: string, block: Block): string {
  const name = `${block.page.replace(/[^A-Za-z0-9]+/g, "_")}_${block.line}.mts`;
  return join(scratch, "blocks", name);
}
