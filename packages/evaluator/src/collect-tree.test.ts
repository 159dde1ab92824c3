import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Language } from "@distdebug/schema";
import { describe, expect, test } from "vitest";
import { compareCollectors } from "../fixtures/compare-collectors.js";
import { fixtureText } from "../fixtures/language-suite.js";
import { parseText } from "./internal/build-index.js";
import { type CollectPath, collectTree } from "./internal/collect-tree.js";
import { collectAddon, collectAddonFile, loadCollectAddon } from "./internal/native-collect.js";
import { LANGUAGE_SPECS } from "./internal/specs.js";
import { definitionNodeTypes } from "./internal/symbols.js";

const fixtures: [Language, string][] = [
  ["java", "FinalRequestProcessor.java"],
  ["go", "raft.go"],
  ["rust", "store.rs"],
  ["python", "scheduler.py"],
  ["cpp", "replica.cc"],
  ["scala", "Cleaner.scala"],
  ["c", "wal.c"],
];

/** Non-ASCII text in comments, also before code on its line (columns count UTF-16 units). */
function nonAscii(language: Language, text: string): string {
  const commented = text.replace(/(\/\/|#) /g, "$1 😀é ");
  if (language === "python" || language === "scala") return commented;
  return commented.replace(/^([ \t]+)(\w)/gm, "$1/*é😀*/ $2");
}

const variants: [string, (text: string, language: Language) => string][] = [
  ["as is", (text) => text],
  ["CRLF line ends", (text) => text.replace(/\n/g, "\r\n")],
  ["non-ASCII comments", (text, language) => nonAscii(language, text)],
];

const paths: CollectPath[] = ["addon", "binding"];

/** Syntax errors every few lines: stray tokens, a dropped closing parenthesis. */
function broken(text: string): string {
  return text
    .split("\n")
    .map((line, row) => {
      if (row % 9 === 4) return `${line} @@ ?? @@`;
      if (row % 13 === 7) return line.replace(")", "");
      return line;
    })
    .join("\n");
}

describe("collectTree (native batches) collects what walkTree (one cursor walk) does", () => {
  test("the evaluator's addon is built and loads (install builds it with node-gyp)", () => {
    expect(collectAddon?.treeSitterVersion).toBe("0.25.1");
  });

  test("an addon that is missing, broken or built for another tree-sitter is not used", async () => {
    const dir = await mkdtemp(join(tmpdir(), "distdebug-addon-"));
    try {
      expect(loadCollectAddon(join(dir, "missing.node"), "0.25.1")).toBeUndefined();
      const broken = join(dir, "broken.node");
      await writeFile(broken, "not a shared object");
      expect(loadCollectAddon(broken, "0.25.1")).toBeUndefined();
      expect(loadCollectAddon(collectAddonFile, "0.25.2")).toBeUndefined();
      expect(loadCollectAddon(collectAddonFile, "0.25.1")).toBe(collectAddon);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  for (const path of paths)
    for (const [language, fixture] of fixtures)
      for (const [variant, change] of variants)
        test(`${path}: ${fixture}, ${variant}`, () => {
          const text = change(fixtureText(fixture), language);
          const { fast, walked } = compareCollectors(language, text, path);
          expect(fast).toBeDefined();
          expect(fast).toEqual(walked);
        });

  test("binding: a tree with ERROR nodes is left to the walk", () => {
    const text = "class A { void f() { int x = ; } }";
    const spec = LANGUAGE_SPECS.java;
    const { definitions, packageType } = definitionNodeTypes("java");
    expect(
      collectTree(parseText("java", text), text, spec, definitions, packageType, "binding"),
    ).toBeUndefined();
  });

  // Real code does not always parse: macros in C and C++ headers, newer syntax than the grammar.
  for (const [language, fixture] of fixtures)
    test(`addon: ${fixture} with syntax errors collects what the walk does`, () => {
      const text = broken(fixtureText(fixture));
      expect(parseText(language, text).rootNode.hasError).toBe(true);
      const { fast, walked } = compareCollectors(language, text, "addon");
      expect(walked.errors.length).toBeGreaterThan(0);
      expect(fast).toEqual(walked);
    });
});
