import { describe, expect, it } from "vitest";
import { jsonSchemaOf } from "./json-schema.js";
import { parseTrajectory } from "./parsers.js";
import { Trajectory, TrajectoryExitStatus, trajectoryExitStatus } from "./trajectory.js";

describe("the trajectory exit status", () => {
  it("maps other harnesses' words onto the one vocabulary", () => {
    expect(
      ["submitted", "Submitted", "exited", "LimitsExceeded", "limit-exceeded", "RuntimeError"].map(
        trajectoryExitStatus,
      ),
    ).toEqual(["submitted", "submitted", "submitted", "limit-exceeded", "limit-exceeded", "error"]);
    expect(trajectoryExitStatus(undefined)).toBe("unknown");
    expect(trajectoryExitStatus("")).toBe("unknown");
  });

  it("reads an agent's own word in trajectory.json through the mapping", () => {
    const text = JSON.stringify({
      format: "distdebug.trajectory/1",
      agent: { name: "my-agent" },
      exitStatus: "exited",
      usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: 0 },
      steps: [],
    });
    expect(parseTrajectory(text).exitStatus).toBe("submitted");
  });

  it("refuses an empty word, and lists the four words in the JSON Schema", () => {
    const schema = jsonSchemaOf("trajectory") as {
      properties: { exitStatus: { anyOf: [{ enum: string[] }, { minLength: number }] } };
    };
    expect(schema.properties.exitStatus.anyOf[0].enum).toEqual(TrajectoryExitStatus.options);
    expect(schema.properties.exitStatus.anyOf[1].minLength).toBe(1);
    expect(Trajectory.shape.exitStatus.safeParse("").success).toBe(false);
  });
});
