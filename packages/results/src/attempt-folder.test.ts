import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { removeAttemptLeftovers, stageAttemptFolder } from "./attempt-folder.js";
import { ATTEMPT_FILES, attemptDir } from "./layout.js";

describe("stageAttemptFolder", () => {
  it("writes aside and puts the folder in place on commit", async () => {
    const outDir = await testdir();
    const folder = await stageAttemptFolder({ outDir, incidentId: "a-1", attempt: 1 });
    await folder.write(ATTEMPT_FILES.diagnosis, "{}\n");
    expect(await readdir(join(outDir, "a-1"))).toEqual([expect.stringMatching(/^\.attempt-1\./)]);
    expect(await folder.commit()).toBe(attemptDir(outDir, "a-1", 1));
    expect(await readdir(join(outDir, "a-1"))).toEqual(["attempt-1"]);
    expect(await readdir(attemptDir(outDir, "a-1", 1))).toEqual([ATTEMPT_FILES.diagnosis]);
  });

  it("replaces an earlier attempt folder whole", async () => {
    const outDir = await testdir({
      "a-1/attempt-2/attempt.json": "old",
      "a-1/attempt-2/diagnosis.json": "old",
    });
    const folder = await stageAttemptFolder({ outDir, incidentId: "a-1", attempt: 2 });
    await folder.write(ATTEMPT_FILES.attempt, "new");
    await folder.commit();
    const dir = attemptDir(outDir, "a-1", 2);
    expect(await readdir(dir)).toEqual([ATTEMPT_FILES.attempt]);
    expect(await readFile(join(dir, ATTEMPT_FILES.attempt), "utf8")).toBe("new");
    expect(await readdir(join(outDir, "a-1"))).toEqual(["attempt-2"]);
  });
});

describe("removeAttemptLeftovers", () => {
  it("removes staging and moved-aside folders of the named incidents only", async () => {
    const outDir = await testdir({
      "a-1/attempt-1/attempt.json": "{}",
      "a-1/.attempt-1.partial-0a1b2c3d/attempt.json": "{}",
      "a-1/.attempt-2.replaced-0a1b2c3d/attempt.json": "{}",
      "b-2/.attempt-1.partial-0a1b2c3d/attempt.json": "{}",
    });
    await removeAttemptLeftovers(outDir, ["a-1", "missing-3"]);
    expect(await readdir(join(outDir, "a-1"))).toEqual(["attempt-1"]);
    expect(await readdir(join(outDir, "b-2"))).toEqual([".attempt-1.partial-0a1b2c3d"]);
  });
});
