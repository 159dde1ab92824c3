import { describe, expect, it } from "vitest";
import { toExecResult } from "./exec-result.js";
import { OutputBuffer } from "./output-buffer.js";
import type { RunProcessResult } from "./run-process.js";

function raw(fields: Partial<RunProcessResult>): RunProcessResult {
  return {
    exitCode: 0,
    signal: null,
    stdout: new OutputBuffer(1024),
    stderr: new OutputBuffer(1024),
    durationMs: 5,
    timedOut: false,
    aborted: false,
    outputLimitHit: false,
    ...fields,
  };
}

describe("toExecResult", () => {
  it("gives a command the sandbox killed no exit code, even when bwrap exited with its init's 137", () => {
    // The race: the init process is killed first and bwrap exits 137 before its own SIGKILL.
    for (const limit of [{ timedOut: true }, { outputLimitHit: true }]) {
      const result = toExecResult(raw({ exitCode: 137, signal: null, ...limit }));
      expect(result).toMatchObject({ exitCode: null, signal: "SIGKILL" });
    }
    expect(toExecResult(raw({ exitCode: null, signal: "SIGKILL", timedOut: true }))).toMatchObject({
      exitCode: null,
      signal: "SIGKILL",
      limitHit: "timeout",
    });
  });

  it("keeps the exit code of a command that ended by itself", () => {
    expect(toExecResult(raw({ exitCode: 137 }))).toMatchObject({ exitCode: 137, signal: null });
    expect(toExecResult(raw({ exitCode: 3 })).limitHit).toBeUndefined();
  });
});
