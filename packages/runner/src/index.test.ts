import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("the public surface", () => {
  // Adding an export is a decision: add its name here too, with its TSDoc and README entry.
  it("is exactly this list of names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "checkRunInputs",
      "checkShard",
      "findMirror",
      "incidentsOfShard",
      "mirrorOf",
      "parseShard",
      "prepareIncident",
      "removeDeadWorkDirs",
      "runAttempt",
      "runBenchmark",
      "runPool",
      "scoreResults",
      "shardOf",
      "verifyScratchPrefix",
    ]);
  });
});
