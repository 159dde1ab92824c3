import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("the public surface", () => {
  // Adding an export is a decision: add its name here too, with its TSDoc and README entry.
  it("is exactly this list of names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "ATTEMPT_FILES",
      "ATTEMPT_FILE_LIMITS",
      "FINISHED_STATUSES",
      "MIN_SECRET_LENGTH",
      "REDACTED",
      "RESULTS_FILES",
      "attemptDir",
      "attemptFileProblem",
      "attemptInputHash",
      "attemptPath",
      "isFinished",
      "legacyAttemptInputHash",
      "listAttemptFolders",
      "matchAttempt",
      "mergeResults",
      "parseAttemptPath",
      "readAttempt",
      "readFinishedAttempt",
      "readRunInfo",
      "readSummary",
      "redactSecrets",
      "removeAttemptLeftovers",
      "runInfoPath",
      "runLockPath",
      "stageAttemptFolder",
      "summaryPath",
      "writeRunInfo",
      "writeSummary",
    ]);
  });
});
