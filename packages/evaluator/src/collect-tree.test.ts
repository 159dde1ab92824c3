import type { Language } from "@distdebug/schema";
import { describe, expect, test } from "vitest";
import { compareCollectors } from "../fixtures/compare-collectors.js";
import { fixtureText } from "../fixtures/language-suite.js";
import { parseText } from "./internal/build-index.js";
import { collectTree } from "./internal/collect-tree.js";
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

describe("collectTree (native batches) collects what walkTree (one cursor walk) does", () => {
  for (const [language, fixture] of fixtures)
    for (const [variant, change] of variants)
      test(`${fixture}, ${variant}`, () => {
        const text = change(fixtureText(fixture), language);
        const { fast, walked } = compareCollectors(language, text);
        expect(fast).toBeDefined();
        expect(fast).toEqual(walked);
      });

  test("a tree with ERROR nodes is left to the walk", () => {
    const text = "class A { void f() { int x = ; } }";
    const spec = LANGUAGE_SPECS.java;
    const { definitions, packageType } = definitionNodeTypes("java");
    expect(
      collectTree(parseText("java", text), text, spec, definitions, packageType),
    ).toBeUndefined();
  });
});
