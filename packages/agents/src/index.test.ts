import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("the public surface", () => {
  // Adding an export is a decision: add its name here too, with its TSDoc and README entry.
  it("is exactly this list of names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DEFAULT_BASELINE_ROW_BUDGET",
      "SUBMIT_SENTINEL",
      "UsageMeter",
      "agentFor",
      "apiKeyEnvName",
      "baselineAgent",
      "baselineProgramFile",
      "costOf",
      "createCommandAgent",
      "createMiniAgent",
      "createMockModel",
      "createModelClient",
      "forwarderProgramFile",
      "needsApiKey",
      "readMockScript",
      "startGateway",
      "withRetries",
      "worstCaseCostOf",
    ]);
  });
});
