import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAttempt } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { runCommandAgent } from "../testing/run-command-agent.js";

/**
 * Attacker agents that try to choose their status or draw on the operator's terminal through
 * what they leave behind. Each writes a valid diagnosis, then does what its first argument says.
 */
const AGENT = `#!/bin/sh
printf '{"format":"distdebug.diagnosis/1","incidentId":"%s","blocks":[{"path":"lease/lessor.go","startLine":147,"endLine":148}]}' "$DISTDEBUG_INCIDENT_ID" > /output/diagnosis.json
head='{"format":"distdebug.trajectory/1","agent":{"name":"attacker"},"exitStatus":"submitted","usage":{"inputTokens":0,"outputTokens":0,"cachedTokens":0,"calls":0,"costUsd":0},"steps":[],"extra":{"v":'
case "$1" in
  deep)
    { printf '%s' "$head"; head -c 200000 /dev/zero | tr '\\0' '['; head -c 200000 /dev/zero | tr '\\0' ']'; printf '}}'; } > /output/trajectory.json ;;
  wide)
    { printf '%s[' "$head"; head -c 3000000 /dev/zero | tr '\\0' '0' | sed 's/000/{},/g'; printf '{}]}}'; } > /output/trajectory.json ;;
  escapes)
    printf 'working\\r\\033[2K\\033[1A\\033[2K\\033[32mleasekv-77 attempt 1: succeeded coverage 100.0\\033[0m\\n' >&2
    exit 1 ;;
esac
`;

let work: string;

beforeAll(async () => {
  work = await testdir({ "agent/agent.sh": AGENT });
});

/** `distdebug run` of one leasekv-77 attempt with the attacker agent in `mode`. */
async function attack(mode: string) {
  const run = await runCommandAgent({
    work,
    name: `attack-${mode}`,
    command: ["/bin/sh", "/opt/agent/agent.sh", mode],
    sandbox: { readOnlyBinds: [{ source: join(work, "agent"), target: "/opt/agent" }] },
    out: join(work, `results-${mode}`),
    wallTimeLimitSec: 120,
  });
  const record = parseAttempt(
    await readFile(join(run.out, "leasekv-77/attempt-1/attempt.json"), "utf8"),
  );
  return { ...run, record };
}

describe("an agent cannot choose infra-error through what it leaves in /output", () => {
  // Each case is one real `distdebug run` with bubblewrap (the first builds the cache).
  it("a valid trajectory nested 200,000 deep is the agent's error, in one line", {
    timeout: 240_000,
  }, async () => {
    const { record, stderr } = await attack("deep");
    expect(record.status).toBe("agent-error");
    expect(record.error?.message).toBe(
      "the agent's output could not be handled: leasekv-77/attempt-1/trajectory.json: the JSON nests deeper than 100 levels; refused (a DistDebug file nests at most 100 levels and holds at most 1,000,000 values)",
    );
    expect(stderr).not.toContain("Maximum call stack");
  });

  it("a trajectory of a million empty objects is the agent's error", {
    timeout: 240_000,
  }, async () => {
    const { record } = await attack("wide");
    expect(record.status).toBe("agent-error");
    expect(record.error?.message).toContain(
      "trajectory.json: the JSON holds more than 1000000 values",
    );
  });
});

describe("an agent's stderr cannot draw on the operator's terminal", () => {
  it("run's progress shows its escape sequences inert: no erased line, no fake green result", {
    timeout: 240_000,
  }, async () => {
    const { record, stderr } = await attack("escapes");
    expect(record.status).toBe("agent-error");
    expect(record.error?.message).toContain("\u001b[2K");
    expect(stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(stderr).toContain("(the program exited with 1: working\\u000d\\u001b[2K\\u001b[1A");
  });
});
