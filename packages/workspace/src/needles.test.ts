import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileNeedles, scrubNeedles } from "./needles.js";

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

  it("never changes length or line breaks, and leaves no needle behind (property)", () => {
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
          expect(out.length).toBe(content.length);
          expect(matches.length).toBeGreaterThan(0);
          for (let i = 0; i < content.length; i++) {
            if (content[i] === 10 || out[i] === 10) expect(out[i]).toBe(content[i]);
          }
          expect(matcher.find(out)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
