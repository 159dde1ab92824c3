import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("the public surface", () => {
  // Adding an export is a decision: add its name here too, with its TSDoc and README entry.
  it("is exactly this list of names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "MIN_COMMIT_PREFIX",
      "REDACTION_TEXT",
      "blobObject",
      "checkLeakage",
      "commitObject",
      "compileNeedles",
      "defaultCacheDir",
      "openRepository",
      "openRevisionFiles",
      "prepareWorkspace",
      "readCommit",
      "readFileAtCommit",
      "scrubNeedles",
      "standInForMissingBlobs",
      "tagObject",
      "treeObjects",
      "writeBareRepository",
    ]);
  });
});
