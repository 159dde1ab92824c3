import { describe, expect, it } from "vitest";
import { DistDebugError } from "./errors.js";
import { checkJsonText } from "./json-limits.js";
import { parseTrajectory } from "./parsers.js";

const trajectory = (extra: string) =>
  `{"format":"distdebug.trajectory/1","incidentId":"x","agent":{"name":"a"},"exitStatus":"done","usage":{"inputTokens":0,"outputTokens":0,"cachedTokens":0,"calls":0,"costUsd":0},"steps":[],"extra":{"v":${extra}}}`;

function refusal(input: unknown): string {
  try {
    parseTrajectory(input, { source: "trajectory.json" });
  } catch (error) {
    if (DistDebugError.isInstance(error) && error.code === "INVALID_FILE") return error.message;
    throw error;
  }
  return "accepted";
}

describe("parsing is bounded in depth and values, not only bytes", () => {
  it("refuses a valid trajectory nested 200,000 deep in one line, before any recursive walk", () => {
    const message = refusal(trajectory(`${"[".repeat(200_000)}${"]".repeat(200_000)}`));
    expect(message).toBe(
      "trajectory.json: the JSON nests deeper than 100 levels; refused (a DistDebug file nests at most 100 levels and holds at most 1,000,000 values)",
    );
  });

  it("refuses 1,000,001 values, and counts no bracket or comma inside strings", () => {
    expect(refusal(trajectory(`[${"{},".repeat(1_000_000)}{}]`))).toContain(
      "holds more than 1000000 values",
    );
    expect(refusal(trajectory(JSON.stringify("[{,".repeat(2_000_000))))).toBe("accepted");
    expect(refusal(trajectory(`"\\\\"`))).toBe("accepted");
  });

  it("bounds an already parsed value the same way", () => {
    let deep: unknown[] = [];
    const root = deep;
    for (let level = 0; level < 200; level++) {
      const inner: unknown[] = [];
      deep[0] = inner;
      deep = inner;
    }
    const value = JSON.parse(trajectory("0"));
    value.extra = { v: root };
    expect(refusal(value)).toContain("the value nests deeper than 100 levels");
  });
});

describe("checkJsonText", () => {
  it("reads bytes as they are (multi-byte UTF-8 never hides a bracket)", () => {
    const deep = `{"é":${"[".repeat(101)}${"]".repeat(101)}}`;
    expect(() => checkJsonText(Buffer.from(deep), { source: "x.json" })).toThrow(
      "x.json: the JSON nests deeper than 100 levels",
    );
    expect(() => checkJsonText(Buffer.from(`["é[[[",${"[]".repeat(10)}]`))).not.toThrow();
  });
});
