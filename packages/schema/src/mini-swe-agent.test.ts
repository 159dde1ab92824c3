import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectFormat } from "./detect.js";
import { serialize } from "./parse.js";
import { parseTrajectory } from "./parsers.js";

const fixture = (name: string) =>
  readFile(join(import.meta.dirname, "..", "fixtures", name), "utf8");

describe("mini-swe-agent trajectories", () => {
  it("converts the mini-swe-agent-1.1 object: text and tool-call actions, exit message, cost", async () => {
    const text = await fixture("mini-swe-agent-1.1.traj.json");
    expect(detectFormat(text)).toEqual({ kind: "trajectory", tag: "mini-swe-agent-1.1" });
    const trajectory = parseTrajectory(text, { source: "run.traj.json" });
    expect(trajectory.convertedFrom).toBe("mini-swe-agent-1.1");
    expect(trajectory.agent).toEqual({ name: "mini-swe-agent", version: "1.14.2" });
    expect(trajectory.exitStatus).toBe("submitted");
    expect(trajectory.extra?.exit_status).toBe("Submitted");
    expect(trajectory.submission).toBe("{}");
    const commands = trajectory.steps.filter((step) => step.type === "command");
    expect(commands.map((step) => step.command)).toEqual([
      "ls -la /workspace",
      "grep -rn 'loadDataBase' src | head",
      "cat > /output/diagnosis.json <<'EOF'\n{}\nEOF\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
    ]);
    expect(commands.map((step) => step.exitCode)).toEqual([0, 0, 1]);
    expect(commands[0]?.output).toContain("build.xml");
    expect(commands[1]?.output).toContain("ZKDatabase.java:240");
    expect(trajectory.usage).toEqual({
      inputTokens: 5900,
      outputTokens: 294,
      cachedTokens: 1024,
      calls: 3,
      costUsd: 0.0124,
    });
    expect(trajectory.steps.filter((step) => step.type === "model-call")).toHaveLength(3);
    // Unknown fields are kept.
    expect(trajectory.extra?.instance_id).toBe("zookeeper-2845");
    expect((trajectory.extra?.info as { config?: unknown } | undefined)?.config).toBeDefined();
    // Observations consumed as command outputs are not repeated as messages.
    expect(
      trajectory.steps.filter((step) => step.type === "message").map((step) => step.role),
    ).toEqual(["system", "user", "assistant", "assistant", "assistant"]);
  });

  it("decodes a tool message's JSON observation (mini-swe-agent 2.x tool calls): the output as printed, lines and all", () => {
    const output = "     1\tpackage lease\n     2\t\n";
    const trajectory = parseTrajectory(
      JSON.stringify({
        trajectory_format: "mini-swe-agent-1.1",
        info: { exit_status: "Submitted", submission: "" },
        messages: [
          { role: "system", content: "s" },
          { role: "user", content: "task" },
          {
            role: "assistant",
            content: "step 0",
            extra: { actions: [{ command: "cat -n lease/lessor.go | head -2" }] },
          },
          {
            role: "tool",
            content: JSON.stringify({ returncode: 3, output }, null, 2),
            extra: { returncode: 3 },
          },
        ],
      }),
    );
    const command = trajectory.steps.find((step) => step.type === "command");
    expect(command).toMatchObject({ exitCode: 3, output });
  });

  it("converts the older bare message list: exit status from the last message, summed cost, format errors", async () => {
    const text = await fixture("mini-swe-agent-legacy.traj.json");
    expect(detectFormat(text).tag).toBe("mini-swe-agent-legacy");
    const trajectory = parseTrajectory(text);
    expect(trajectory.exitStatus).toBe("limit-exceeded");
    expect(trajectory.extra?.exit_status).toBe("LimitsExceeded");
    const commands = trajectory.steps.filter((step) => step.type === "command");
    expect(commands.map((step) => step.command)).toEqual([
      "find . -name '*Processor*.java'",
      "sed -n 1,40p src/FinalRequestProcessor.java",
    ]);
    // Two bash blocks are a format error in mini-swe-agent: nothing ran, the reply stays a message.
    expect(
      trajectory.steps.some(
        (step) => step.type === "message" && step.content.includes("EXACTLY ONE action"),
      ),
    ).toBe(true);
    expect(commands[1]?.output).toBe("package org.example;");
    expect(trajectory.usage.inputTokens).toBe(3400);
    expect(trajectory.usage.outputTokens).toBe(120);
    expect(trajectory.usage.calls).toBe(3);
    expect(trajectory.usage.costUsd).toBeCloseTo(0.007, 12);
  });

  it("is stable through serialize and parse", async () => {
    const first = parseTrajectory(await fixture("mini-swe-agent-1.1.traj.json"));
    const text = serialize(first);
    expect(serialize(parseTrajectory(text))).toBe(text);
  });
});
