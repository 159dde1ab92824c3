import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { createSandbox } from "./create-sandbox.js";
import { findMemoryCgroup } from "./memory-budget.js";
import { probeSandbox } from "./probe.js";
import { isRoot } from "./testing/test-support.js";

describe("probeSandbox", () => {
  it("finds bubblewrap working on this host (CI runs as root: the privileged path)", async () => {
    const probe = await probeSandbox();
    expect(probe.bwrapPath).toMatch(/bwrap$/);
    expect(probe.bwrapVersion).toMatch(/^\d+\.\d+/);
    const privileged = probe.backends.find((entry) => entry.mode === "privileged");
    expect(privileged?.available).toBe(isRoot);
    if (!isRoot) expect(privileged?.reason).toMatch(/root/);
    expect(probe.recommended?.backend).toBe("bubblewrap");
    expect(probe.backends.at(-1)).toEqual({ backend: "no-sandbox", available: true, unsafe: true });
  });

  it("says how resources are bounded here (cgroup v1 host: a sampled memory total as root, and why there is no cgroup)", async () => {
    const probe = await probeSandbox();
    const cgroup = "parent" in (await findMemoryCgroup());
    expect(probe.resources).toEqual({
      memory: cgroup ? "cgroup-v2" : isRoot ? "sampled-total" : "rlimit-per-process",
      processes: isRoot ? "per-attempt-uid" : "shared-uid",
      disk: isRoot ? "tmpfs" : "none",
    });
    expect(probe.cgroupV2Delegated).toBe(cgroup);
    if (!cgroup) expect(probe.cgroupV2Reason).toMatch(/cgroup/);
  });

  it("says why not and how to install when bwrap is missing", async () => {
    const probe = await probeSandbox({ bwrapPath: "/nonexistent/bwrap" });
    expect(probe.recommended).toBeUndefined();
    for (const entry of probe.backends.filter((backend) => backend.backend === "bubblewrap")) {
      expect(entry.available).toBe(false);
      expect(entry.reason).toContain("/nonexistent/bwrap was not found");
      expect(entry.fix).toMatch(/apt-get install -y bubblewrap.*dnf.*pacman/);
    }
  });
});

describe("createSandbox setup errors", () => {
  it("throws SANDBOX_UNAVAILABLE with install instructions when bwrap is missing", async () => {
    const workspace = await testdir();
    await expect(
      createSandbox({ workspace, bwrapPath: "/nonexistent/bwrap" }),
    ).rejects.toMatchObject({
      code: "SANDBOX_UNAVAILABLE",
      message: expect.stringMatching(/apt-get install -y bubblewrap/),
    });
  });

  it("rejects a bad policy with INVALID_CONFIG naming the field", async () => {
    const workspace = await testdir();
    const error = await createSandbox({
      workspace,
      policy: {
        network: "host" as "none",
        readOnlyBinds: [{ source: "/opt", target: "/workspace" }],
      },
    }).catch((caught) => caught);
    expect(error.code).toBe("INVALID_CONFIG");
    expect(error.message).toContain("$.network");
    expect(error.message).toContain("$.readOnlyBinds[0].target");
  });

  it("rejects a missing workspace, a missing or relative bind source and a gateway policy without a socket", async () => {
    const workspace = await testdir();
    await expect(createSandbox({ workspace: `${workspace}/missing` })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await expect(
      createSandbox({
        workspace,
        policy: { readOnlyBinds: [{ source: "/nonexistent-toolchain" }] },
      }),
    ).rejects.toThrow(/nonexistent-toolchain/);
    await expect(
      createSandbox({ workspace, policy: { readOnlyBinds: [{ source: "usr/lib" }] } }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringMatching(
        /^usr\/lib: a read-only bind's source must be an absolute host path/,
      ),
    });
    await expect(createSandbox({ workspace, policy: { network: "gateway" } })).rejects.toThrow(
      /gateway socket/,
    );
  });

  it("reports a bwrap setup failure as SANDBOX_ERROR, not as the command's result", async () => {
    const workspace = await testdir();
    const sandbox = await createSandbox({ workspace });
    await expect(sandbox.exec("true", { cwd: "/nonexistent-dir" })).rejects.toMatchObject({
      code: "SANDBOX_ERROR",
      message: expect.stringMatching(/nonexistent-dir/),
    });
  });
});
