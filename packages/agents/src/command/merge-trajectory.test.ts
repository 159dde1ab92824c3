import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseTrajectory, type Trajectory } from "@distdebug/schema";
import { describe, expect, it } from "vitest";
import type { MeteredCall } from "../model/usage-meter.js";
import { mergeTrajectory } from "./merge-trajectory.js";

const fixture = join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "schema",
  "fixtures",
  "mini-swe-agent-1.1.traj.json",
);

const call = (index: number): MeteredCall => ({
  type: "model-call",
  model: `gateway-${index}`,
  inputTokens: 100 + index,
  outputTokens: 10,
  cachedTokens: 0,
  costUsd: null,
  durationMs: 5,
  at: new Date(Date.UTC(2026, 11, 4, 12, 0, index)).toISOString(),
});

const usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: null };

/** An agent's own trajectory of these steps. */
const ownTrajectory = (name: string, steps: Trajectory["steps"]): Trajectory => ({
  format: "distdebug.trajectory/1",
  agent: { name },
  exitStatus: "submitted",
  usage,
  steps,
});

/** The kinds of steps in order: `call` (a gateway call), `cmd`, `assistant`, ... */
function shape(trajectory: Trajectory): string[] {
  return trajectory.steps.map((step) =>
    step.type === "model-call"
      ? (step.model ?? "call")
      : step.type === "command"
        ? "cmd"
        : step.role,
  );
}

describe("mergeTrajectory", () => {
  it("places the gateway's calls where the agent's own calls were when no step has a time (mini-swe-agent)", async () => {
    const own = parseTrajectory(await readFile(fixture, "utf8"));
    expect(own.steps.some((step) => step.at !== undefined)).toBe(false);
    const ownCalls = own.steps.filter((step) => step.type === "model-call").length;
    expect(ownCalls).toBeGreaterThan(1);
    const calls = Array.from({ length: ownCalls }, (_, index) => call(index));
    const merged = mergeTrajectory(own, calls, usage);
    const order = shape(merged);
    // Each gateway call takes the place of the agent's call: before the commands it led to.
    const expected = shape(own).map((kind, index) =>
      own.steps[index]?.type === "model-call" ? "" : kind,
    );
    let next = 0;
    expect(order).toEqual(
      expected.map((kind) => (kind === "" ? `gateway-${next++}` : kind)).filter(Boolean),
    );
    expect(order.at(-1)).not.toMatch(/^gateway-/);
  });

  it("places one call before each assistant message when the agent wrote neither times nor calls", () => {
    const own = ownTrajectory("plain", [
      { type: "message", role: "user", content: "task" },
      { type: "message", role: "assistant", content: "ls" },
      { type: "command", command: "ls", exitCode: 0, output: "a" },
      { type: "message", role: "assistant", content: "cat a" },
      { type: "command", command: "cat a", exitCode: 0, output: "x" },
    ]);
    const merged = mergeTrajectory(own, [call(0), call(1), call(2)], usage);
    expect(shape(merged)).toEqual([
      "user",
      "gateway-0",
      "assistant",
      "cmd",
      "gateway-1",
      "assistant",
      "cmd",
      "gateway-2",
    ]);
  });

  it("keeps placing calls by time when the agent's steps carry times", () => {
    const own = ownTrajectory("timed", [
      { type: "command", command: "a", exitCode: 0, output: "", at: call(1).at },
      { type: "command", command: "b", exitCode: 0, output: "", at: call(3).at },
    ]);
    const merged = mergeTrajectory(own, [call(0), call(2), call(4)], usage);
    expect(shape(merged)).toEqual(["gateway-0", "cmd", "gateway-2", "cmd", "gateway-4"]);
  });
});
