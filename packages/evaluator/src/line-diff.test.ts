import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffLines } from "./line-diff.js";

/** How many buggy lines a minimal diff removes: length minus a longest common subsequence. */
function editCount(buggy: string[], fixed: string[]): number {
  // the quadratic table (small inputs only)
  const table = Array.from({ length: buggy.length + 1 }, () =>
    new Array<number>(fixed.length + 1).fill(0),
  );
  for (let i = buggy.length - 1; i >= 0; i--)
    for (let j = fixed.length - 1; j >= 0; j--)
      table[i]![j] =
        buggy[i] === fixed[j]
          ? table[i + 1]![j + 1]! + 1
          : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  return buggy.length - table[0]![0]!;
}

describe("diffLines", () => {
  it("pins the tie rule: x y x -> y x y removes line 1 and inserts after line 3", () => {
    expect(diffLines(["x", "y", "x"], ["y", "x", "y"])).toEqual({
      removed: [1],
      insertions: [3],
    });
  });

  it("reports a replacement as removed lines and a pure insertion by the line it follows", () => {
    expect(diffLines(["a", "b", "c", "d"], ["a", "B", "c", "x", "y", "d"])).toEqual({
      removed: [2],
      insertions: [3],
    });
    expect(diffLines(["a", "b"], ["z", "a", "b"])).toEqual({ removed: [], insertions: [0] });
    expect(diffLines(["a", "b"], ["a", "b"])).toEqual({ removed: [], insertions: [] });
    // the insertion could follow line 1 or line 2: matches come first, so it follows line 2
    expect(diffLines(["f {", "}", "g"], ["f {", "}", "h", "}", "g"])).toEqual({
      removed: [],
      insertions: [2],
    });
    expect(diffLines(["a", "b"], [])).toEqual({ removed: [1, 2], insertions: [] });
  });

  it("finds exactly the three edits in a 6,000-line file", () => {
    const buggy = Array.from({ length: 6_000 }, (_, index) => `line ${index + 1};`);
    const fixed = [...buggy];
    fixed[649] = "changed 650;"; // replace line 650
    fixed.splice(3_976, 0, "inserted after 3976;"); // pure insertion after line 3976
    fixed.splice(fixed.indexOf("line 5018;"), 1); // remove line 5018
    expect(diffLines(buggy, fixed)).toEqual({ removed: [650, 5018], insertions: [3976] });
  });

  it("removes exactly the lines a minimal diff removes (property)", () => {
    const text = fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 14 });
    fc.assert(
      fc.property(text, text, (buggy, fixed) => {
        const edits = diffLines(buggy, fixed);
        // a minimal script removes n - lcs lines; every reported line exists
        expect(edits.removed.length).toBe(editCount(buggy, fixed));
        for (const line of edits.removed) expect(line).toBeGreaterThanOrEqual(1);
        for (const line of edits.removed) expect(line).toBeLessThanOrEqual(buggy.length);
        // keeping the unremoved buggy lines leaves a subsequence of the fixed text
        const removed = new Set(edits.removed);
        const kept = buggy.filter((_, index) => !removed.has(index + 1));
        let at = 0;
        for (const line of fixed) if (at < kept.length && kept[at] === line) at++;
        expect(at).toBe(kept.length);
      }),
    );
  });
});
