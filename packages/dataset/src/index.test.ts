import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("the public surface", () => {
  // Adding an export is a decision: add its name here too, with its TSDoc and README entry.
  it("is exactly this list of names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "ADJACENT_ROWS",
      "PAPER_SHAPE",
      "SHAPE_TOLERANCE",
      "buildIncidentRepository",
      "bundledDatasets",
      "checkArtifacts",
      "checkDataset",
      "datasetDigest",
      "datasetSources",
      "datasetStats",
      "formatProblem",
      "globToRegExp",
      "incidentDigest",
      "incidentDigests",
      "incidentTask",
      "loadDataset",
      "loadGold",
      "opaqueTaskId",
      "openIncidentRepository",
      "selectIncidents",
      "verifyIncident",
      "writeAgentTaskFolder",
      "writeTaskFiles",
    ]);
  });
});
