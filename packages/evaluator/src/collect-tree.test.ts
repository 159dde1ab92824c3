import type { Language } from "@distdebug/schema";
import { describe, expect, test } from "vitest";
import { fixtureText } from "../fixtures/language-suite.js";
import { parseText } from "./internal/build-index.js";
import { type Collected, collectTree, fromWalk } from "./internal/collect-tree.js";
import { LANGUAGE_SPECS } from "./internal/specs.js";
import { collectDefinitions, definitionNodeTypes } from "./internal/symbols.js";
import { splitLines } from "./internal/text.js";
import { walkTree } from "./internal/walk-tree.js";

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

/** Everything the index reads from a collection, in a canonical order. */
function facts(language: Language, collected: Collected, text: string) {
  const { atoms } = collected;
  const rows = Array.from({ length: atoms.count }, (_, index) => [
    atoms.types[index],
    atoms.startRow[index],
    atoms.startColumn[index],
    atoms.endRow[index],
    atoms.endColumn[index],
    atoms.containerStart[index],
    atoms.containerEnd[index],
  ]);
  rows.sort((a, b) => {
    for (let field = 1; field < a.length; field++)
      if (a[field] !== b[field]) return (a[field] as number) - (b[field] as number);
    return 0;
  });
  const definitions = collectDefinitions(
    language,
    collected.definitions,
    collected.packageNode,
    splitLines(text),
    collected.wrappers,
  );
  return { rows, comments: collected.comments, errors: collected.errors, definitions };
}

describe("collectTree (native batches) collects what walkTree (one cursor walk) does", () => {
  for (const [language, fixture] of fixtures)
    for (const [variant, change] of variants)
      test(`${fixture}, ${variant}`, () => {
        const text = change(fixtureText(fixture), language);
        const spec = LANGUAGE_SPECS[language];
        const { definitions, packageType } = definitionNodeTypes(language);
        const fast = collectTree(parseText(language, text), text, spec, definitions, packageType);
        expect(fast).toBeDefined();
        const walked = fromWalk(
          walkTree(parseText(language, text), spec, definitions, packageType),
        );
        expect(facts(language, fast as Collected, text)).toEqual(facts(language, walked, text));
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
