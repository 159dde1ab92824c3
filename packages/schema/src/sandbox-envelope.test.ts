import { describe, expect, it } from "vitest";
import { type Attempt, SandboxPolicy } from "./index.js";
import { attemptEnvelopeProblems, sandboxEnvelopeProblems } from "./sandbox-envelope.js";

const policy = (readOnlyBinds: { source: string; target?: string }[], backend = "bubblewrap") =>
  SandboxPolicy.parse({ readOnlyBinds, backend });

describe("sandboxEnvelopeProblems", () => {
  it("refuses targets at or under system paths, written any way, and nothing else", () => {
    const problems = sandboxEnvelopeProblems(
      policy([
        { source: "/opt/jdk", target: "/usr/../usr/bin/prlimit" },
        { source: "/opt/lib", target: "/lib64/" },
        { source: "/opt/x", target: "/dev/shm" },
        { source: "/etc" },
        { source: "/opt/ok", target: "/usrlocal" },
        { source: "/opt/ok", target: "/opt/tools" },
      ]),
    );
    expect(problems).toEqual([
      'environment.sandbox.readOnlyBinds[0].target: "/usr/bin/prlimit" is at or under /usr, a path the sandbox itself provides; bind toolchains elsewhere (for example under /opt)',
      'environment.sandbox.readOnlyBinds[1].target: "/lib64" is at or under /lib*, a path the sandbox itself provides; bind toolchains elsewhere (for example under /opt)',
      'environment.sandbox.readOnlyBinds[2].target: "/dev/shm" is at or under /dev, a path the sandbox itself provides; bind toolchains elsewhere (for example under /opt)',
      'environment.sandbox.readOnlyBinds[3].target: "/etc" is at or under /etc, a path the sandbox itself provides; bind toolchains elsewhere (for example under /opt)',
    ]);
  });

  it("refuses sources that contain or sit inside a protected folder, but not a sibling with a shared prefix", () => {
    const problems = sandboxEnvelopeProblems(
      policy([
        { source: "/home/me", target: "/opt/a" },
        { source: "/home/me/data/set/x/", target: "/opt/b" },
        { source: "/home/me/data/settings", target: "/opt/c" },
      ]),
      { protectedPaths: ["/home/me/data/set"] },
    );
    expect(problems).toEqual([
      'environment.sandbox.readOnlyBinds[0].source: "/home/me" contains /home/me/data/set (the dataset, cache or results folder of the run), which the agent must not see',
      'environment.sandbox.readOnlyBinds[1].source: "/home/me/data/set/x" sits inside /home/me/data/set (the dataset, cache or results folder of the run), which the agent must not see',
    ]);
  });

  it("refuses no-sandbox unless allowed", () => {
    expect(sandboxEnvelopeProblems(policy([], "no-sandbox"))[0]).toMatch(
      /^environment\.sandbox\.backend: "no-sandbox" runs the agent on the host unsandboxed/,
    );
    expect(sandboxEnvelopeProblems(policy([], "no-sandbox"), { allowNoSandbox: true })).toEqual([]);
  });
});

describe("attemptEnvelopeProblems", () => {
  const attempt = (sandbox: Partial<Attempt["sandbox"]>) =>
    ({ sandbox: { backend: "bubblewrap", policy: policy([]), ...sandbox } }) as Attempt;

  it("accepts a bubblewrap attempt that recorded its protected folders", () => {
    expect(attemptEnvelopeProblems(attempt({ protectedPaths: ["/data"] }))).toEqual([]);
  });

  it("refuses an attempt without recorded protected folders, one outside the envelope, and no-sandbox", () => {
    expect(attemptEnvelopeProblems(attempt({}))).toEqual([
      expect.stringMatching(/^sandbox\.protectedPaths: missing/),
    ]);
    expect(
      attemptEnvelopeProblems(
        attempt({
          policy: policy([{ source: "/data", target: "/opt/d" }]),
          protectedPaths: ["/data"],
        }),
      ),
    ).toEqual([
      expect.stringMatching(
        /^sandbox\.policy\.readOnlyBinds\[0\]\.source: "\/data" sits inside \/data/,
      ),
    ]);
    expect(
      attemptEnvelopeProblems(
        attempt({ backend: "no-sandbox", policy: policy([], "no-sandbox"), protectedPaths: [] }),
      ),
    ).toEqual([expect.stringMatching(/^sandbox\.backend: "no-sandbox"/)]);
  });
});
