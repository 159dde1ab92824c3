import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseTrajectory } from "@distdebug/schema";
import { gitdir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runIncident } from "./run-incident.js";

const BUGGY = `class Lease:
    def __init__(self, ttl):
        self.ttl = ttl
        self.expires = 0

    def renew(self, now):
        # LEASE-77: renew from the old expiry
        self.expires = self.expires + self.ttl

    def expired(self, now):
        return now > self.expires
`;

/** A stand-in agent: find the method the report names, and write a diagnosis of its body. */
const AGENT = [
  "cat /task/report.md",
  "grep -n 'def renew' -r /workspace --include=*.py",
  `line=$(grep -n 'def renew' /workspace/lease.py | cut -d: -f1); printf '{"format":"distdebug.diagnosis/1","incidentId":"leasekv-77","blocks":[{"path":"lease.py","startLine":%d,"endLine":%d,"reason":"renew adds the TTL to the old expiry"}]}' "$line" "$((line + 2))" > /output/diagnosis.json`,
  "curl -s https://example.org || echo no network",
  "git -C /workspace log --oneline | wc -l",
];

describe("a custom runner on workspace and sandbox", () => {
  it("prepares a clean workspace, runs the agent in the sandbox, and scores its diagnosis", async () => {
    const repo = await gitdir({
      commits: [
        { files: { "lease.py": BUGGY, "README.md": "# leasekv\n" }, message: "lease with renew" },
        {
          files: { "lease.py": BUGGY.replace("self.expires + self.ttl", "now + self.ttl") },
          message: "Fix LEASE-77",
        },
      ],
    });
    const workDir = await testdir();
    const outDir = await testdir();
    const outcome = await runIncident({
      incident: {
        id: "leasekv-77",
        repository: repo.dir,
        buggyCommit: repo.commits[0]!,
        report: "Leases expire late after renew(); see Lease.renew.\n",
        gold: {
          incidentId: "leasekv-77",
          blocks: [{ path: "lease.py", startLine: 8, endLine: 8 }],
          needles: ["LEASE-77"],
        },
      },
      agentCommands: AGENT,
      workDir,
      outDir,
    });
    expect(outcome.scores.valid).toBe(true);
    expect(outcome.scores.metrics.blockCoverage).toBe(1);
    const commands = outcome.trajectory.steps.filter((step) => step.type === "command");
    expect(commands.map((step) => step.exitCode)).toEqual([0, 0, 0, 0, 0]);
    // the sandbox has no network, and the workspace has exactly one anonymized commit
    expect(commands[3]?.output).toContain("no network");
    expect(commands[4]?.output.trim()).toBe("1");
    // the needle was scrubbed from the agent's copy
    expect(await readFile(join(workDir, "workspace", "lease.py"), "utf8")).not.toContain(
      "LEASE-77",
    );
    expect(
      parseTrajectory(await readFile(join(outDir, "trajectory.json"), "utf8")).steps,
    ).toHaveLength(6);
  });
});
