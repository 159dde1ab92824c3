import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

describe("distdebug sandbox probe", () => {
  it("lists each backend with its verdict and the mode it recommends", async () => {
    const io = captureIO();
    expect(await runCli(["sandbox", "probe"], io)).toBe(0);
    expect(io.out()).toMatch(/^bwrap: \/\S+bwrap \(\d+\.\d+/);
    expect(io.out()).toMatch(/bubblewrap \(privileged\)/);
    expect(io.out()).toMatch(/bubblewrap \(user-namespace\)/);
    expect(io.out()).toMatch(/no-sandbox\s+available, UNSAFE/);
    expect(io.out()).toMatch(
      /^resources: memory (cgroup-v2|sampled-total|rlimit-per-process), processes (per-attempt|shared)-uid, disk (tmpfs|none)$/m,
    );
    // No cgroup: the probe says why (on this CI host: the memory controller is bound to cgroup v1).
    if (!/memory cgroup-v2/.test(io.out()))
      expect(io.out()).toMatch(/^ {6}no cgroup for memory: \S.+$/m);
    expect(io.out()).toMatch(/sandbox: bubblewrap in (privileged|user-namespace) mode\n$/);
  });

  it("--json gives the probe", async () => {
    const io = captureIO();
    expect(await runCli(["sandbox", "probe", "--json"], io)).toBe(0);
    const probe = JSON.parse(io.out());
    expect(probe.ok).toBe(true);
    expect(probe.backends).toHaveLength(3);
    expect(probe.resources.memory).toBe(
      probe.cgroupV2Delegated
        ? "cgroup-v2"
        : process.getuid?.() === 0
          ? "sampled-total"
          : "rlimit-per-process",
    );
    expect(typeof probe.cgroupV2Reason === "string").toBe(!probe.cgroupV2Delegated);
  });
});
