import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ATTEMPT_FILES, attemptDir, attemptPath, parseAttemptPath } from "./layout.js";

describe("attemptPath and parseAttemptPath", () => {
  it("name a file of an attempt folder and read it back (property)", () => {
    const id = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/);
    const file = fc.constantFrom(...Object.values(ATTEMPT_FILES));
    fc.assert(
      fc.property(id, fc.integer({ min: 1, max: 10_000 }), file, (incidentId, attempt, name) => {
        expect(parseAttemptPath(attemptPath(incidentId, attempt, name))).toEqual({
          incidentId,
          attempt,
          file: name,
        });
      }),
    );
  });

  it("refuses paths that are not a file of an attempt folder", () => {
    for (const path of [
      "run.json",
      "zklite-142/attempt-1",
      "zklite-142/attempt-0/attempt.json",
      "zklite-142/attempt-01/attempt.json",
      "zklite-142/.attempt-1.partial-ab12/attempt.json",
      "zklite-142/attempt-1/sub/attempt.json",
    ])
      expect(parseAttemptPath(path), path).toBeUndefined();
  });

  it("puts an attempt folder under its incident", () => {
    expect(attemptDir("results/baseline", "zklite-142", 3)).toBe(
      "results/baseline/zklite-142/attempt-3",
    );
  });
});
