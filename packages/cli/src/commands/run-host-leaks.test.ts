import { open } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCommandAgent } from "../testing/run-command-agent.js";

const SECRET = "operator-secret-5d1e";
/** Node marks only low inherited descriptors close-on-exec; a high one reaches its children. */
const INHERITED_FD = 40;

/** Reads every descriptor past stdio it was given and writes what it read into its diagnosis. */
const AGENT = `#!/bin/sh
seen=""
for n in $(ls /proc/self/fd); do
  [ "$n" -gt 2 ] && seen="$seen fd$n=$(head -c 200 /proc/self/fd/$n 2>/dev/null | tr -dc 'a-z0-9-')"
done
printf '{"format":"distdebug.diagnosis/1","incidentId":"%s","blocks":[],"summary":"%s"}' "$DISTDEBUG_INCIDENT_ID" "$seen" > /output/diagnosis.json
`;

/** Reads the command line of every process it sees (bwrap is its pid 1) into its diagnosis. */
const CMDLINE_AGENT = `#!/bin/sh
seen=$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0"\\\\' '   ' | tr -d '\\n')
printf '{"format":"distdebug.diagnosis/1","incidentId":"%s","blocks":[],"summary":"%s"}' "$DISTDEBUG_INCIDENT_ID" "$seen" > /output/diagnosis.json
`;

/**
 * Runs `distdebug run` on leasekv-77 with the agent in `work/agent/agent.sh`, the way a
 * wrapper script would: with `secret` (if given) open on a high fd.
 */
function runAgent(work: string, secret?: number) {
  return runCommandAgent({
    work,
    command: ["/bin/sh", "/opt/agent/agent.sh"],
    sandbox: { readOnlyBinds: [{ source: join(work, "agent"), target: "/opt/agent" }] },
    ...(secret === undefined ? {} : { inherited: { fd: secret, at: INHERITED_FD } }),
  });
}

describe("descriptors the operator's shell left open", () => {
  it("never reach the agent: it reads nothing of a file open on an inherited fd", {
    timeout: 120_000,
  }, async () => {
    const work = await testdir({ "secret.txt": `${SECRET}\n`, "agent/agent.sh": AGENT });
    const secret = await open(join(work, "secret.txt"), "r");
    const { code, stderr, diagnosis } = await runAgent(work, secret.fd).finally(() =>
      secret.close(),
    );
    expect(stderr).toContain("leasekv-77 attempt 1: succeeded");
    expect(code).toBe(0);
    expect(diagnosis).toContain('"summary"');
    expect(diagnosis).not.toContain(SECRET);
  });
});

describe("the sandbox's process list", () => {
  it("shows no host path of the attempt (work folder, cache, incident id) in /proc/1/cmdline", {
    timeout: 120_000,
  }, async () => {
    const work = await testdir({ "agent/agent.sh": CMDLINE_AGENT });
    const { code, stderr, diagnosis } = await runAgent(work);
    expect(stderr).toContain("leasekv-77 attempt 1: succeeded");
    expect(code).toBe(0);
    const summary = (JSON.parse(diagnosis) as { summary: string }).summary;
    expect(summary).toContain("/opt/agent/agent.sh");
    expect(summary).not.toContain(work);
    expect(summary).not.toContain("leasekv-77-a1");
  });
});
