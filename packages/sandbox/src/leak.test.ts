import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { createSandbox } from "./create-sandbox.js";
import { childProcesses, openFdCount, processesOfUid, waitFor } from "./testing/test-support.js";

// A uid of its own, so the host-side listings of this file do not see other test files.
const user = { uid: 61_003, gid: 61_003 };
const COMMANDS = 1000;

describe("resource leaks", () => {
  // SLOW: about 20-30 s on an idle 2-core machine (bwrap costs ~20 ms a command); longer when shared.
  it(`[slow] runs ${COMMANDS} commands in a row without leaking processes or file descriptors`, async () => {
    const workspace = await testdir();
    const sandbox = await createSandbox({ workspace, policy: { user } });
    // Warm up lazily opened descriptors (module loads, pipes pools) before counting.
    await sandbox.exec("true");
    const fdsBefore = openFdCount();
    let failures = 0;
    for (let index = 0; index < COMMANDS; index += 1) {
      const result = await sandbox.exec(
        index % 10 === 0 ? "sleep 1000 & echo $$" : "echo $$",
        index % 2 === 0 ? { stdin: "input" } : {},
      );
      if (result.exitCode !== 0 || result.stdout.trim() === "") failures += 1;
    }
    expect(failures).toBe(0);
    expect(await waitFor(() => processesOfUid(user.uid).length === 0, 3000)).toBe(true);
    expect(
      await waitFor(
        () => childProcesses().filter((entry) => entry.command.includes("bwrap")).length === 0,
        3000,
      ),
    ).toBe(true);
    expect(openFdCount()).toBeLessThanOrEqual(fdsBefore);
    await sandbox.dispose();
  }, 180_000);
});
