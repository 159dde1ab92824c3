import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileNeedles, REDACTION_TEXT, scrubNeedles } from "./needles.js";

const fix = "3f2a9c1b7d8e4f5a6b7c8d9e0f1a2b3c4d5e6f70";

describe("needles", () => {
  it("matches text needles case-insensitively and commit ids by any 7+ digit prefix standing alone", () => {
    const matcher = compileNeedles(["ZOOKEEPER-2845", fix]);
    const text = `a zookeeper-2845 b\nZooKeeper-2845\n${fix.slice(0, 7)} ${fix.slice(0, 6)} x${fix.slice(0, 8)}y ${fix.slice(0, 8)}0 ${fix.toUpperCase()}\n`;
    const found = matcher.find(Buffer.from(text)).map((m) => `${m.line}:${m.text}`);
    expect(found).toEqual([
      "1:zookeeper-2845",
      "2:ZooKeeper-2845",
      `3:${fix.slice(0, 7)}`,
      `3:${fix.slice(0, 8)}`,
      `3:${fix.toUpperCase()}`,
    ]);
  });

  it("matches non-ASCII needles byte for byte", () => {
    const found = compileNeedles(["clé-42"]).find(Buffer.from("x\ny clé-42 CLÉ-42\n"));
    expect(found.map((m) => [m.line, m.offset, m.length])).toEqual([[2, 4, 7]]);
  });

  it("never changes line breaks, and leaves no needle behind (property)", () => {
    const alphabet = fc.constantFrom(..."abkKZ-0129 \n\tü".split(""));
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: alphabet, minLength: 3, maxLength: 6 }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.string({ unit: alphabet, maxLength: 200 }),
        (needles, body) => {
          const usable = needles.filter((n) => n.trim().length > 0 && !n.includes("\n"));
          fc.pre(usable.length > 0);
          const matcher = compileNeedles(usable);
          const content = Buffer.from(`${body}${usable[0]}${body}`);
          const { content: out, matches } = scrubNeedles(content, matcher);
          expect(matches.length).toBeGreaterThan(0);
          const lines = (buffer: Buffer) => buffer.toString("latin1").split("\n").length;
          expect(lines(out)).toBe(lines(content));
          // What precedes the first match is untouched: line numbers of the rest hold.
          expect(out.subarray(0, matches[0]?.offset)).toEqual(
            content.subarray(0, matches[0]?.offset),
          );
          expect(matcher.find(out)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("replaces a key with one plain word whatever its length: no run of one character marks the place", () => {
    for (const key of ["KEY-77", "LEASEKV-77", "ZOOKEEPER-12845"]) {
      const { content } = scrubNeedles(
        Buffer.from(`  // TODO(${key.toLowerCase()}): recheck\n`),
        compileNeedles([key]),
      );
      expect(content.toString()).toBe(`  // TODO(${REDACTION_TEXT}): recheck\n`);
    }
  });

  it("keeps the line breaks of a needle that spans lines, and picks another word when a needle matches the first", () => {
    const twoLines = scrubNeedles(Buffer.from("a\nb c\nd\n"), compileNeedles(["b c\nd"]));
    expect(twoLines.content.toString()).toBe(`a\n${REDACTION_TEXT}\n\n`);
    const own = scrubNeedles(Buffer.from("see ISSUE-1 and issue\n"), compileNeedles(["issue"]));
    expect(own.content.toString()).toBe("see ticket-1 and ticket\n");
  });
});
