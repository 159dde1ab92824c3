import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("the public surface", () => {
  // Adding an export is a decision: add its name here too, with its TSDoc and README entry.
  it("is exactly this list of names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "GATEWAY_SOCKET_PATH",
      "INSTALL_HINT",
      "MEMORY_SAMPLE_MS",
      "NO_SANDBOX_WARNING",
      "SANDBOX_UID_COUNT",
      "SANDBOX_UID_FIRST",
      "createAttemptSandbox",
      "createMemoryBudget",
      "createSandbox",
      "findMemoryCgroup",
      "leaseSandboxUser",
      "mountDiskBudget",
      "parseSandboxPolicy",
      "prepareReadableDir",
      "prepareWritableDir",
      "probeSandbox",
      "unmountLeftoverDiskBudgets",
    ]);
  });
});
