import { SandboxPolicy } from "@distdebug/schema";
import { describe, expect, it } from "vitest";
import { type BwrapArgsInput, bwrapArgs, GATEWAY_SOCKET_PATH } from "./bwrap-args.js";

function input(overrides: Partial<BwrapArgsInput> = {}, policy = {}): BwrapArgsInput {
  const parsed = SandboxPolicy.parse(policy);
  return {
    policy: parsed,
    mode: "privileged",
    rootLayout: [
      { path: "/bin", kind: "symlink", target: "usr/bin" },
      { path: "/lib64", kind: "directory" },
    ],
    workspace: "/host/ws",
    prlimit: "/usr/bin/prlimit",
    launcherFd: 5,
    env: parsed.env,
    statusFd: 3,
    argv: ["/bin/sh", "-c", "echo hi"],
    ...overrides,
  };
}

/** The value after a flag with two operands (`--bind SRC DEST`), for every occurrence. */
function pairs(args: string[], flag: string): [string, string][] {
  const found: [string, string][] = [];
  args.forEach((arg, index) => {
    if (arg === flag) found.push([args[index + 1] ?? "", args[index + 2] ?? ""]);
  });
  return found;
}

describe("bwrapArgs", () => {
  it("with the launcher: one program sets limits, caps the tmpfs inodes and drops to the uid (privileged only) and sets the environment; seccomp on fd 4", () => {
    const policy = { user: { uid: 1234, gid: 5678 }, limits: { processes: 7 }, env: { A: "1" } };
    const privileged = bwrapArgs(input({ seccompFd: 4, env: { A: "1" } }, policy));
    expect(pairs(privileged, "--ro-bind-data")).toEqual([["5", "/run/distdebug/launch"]]);
    expect(
      privileged.slice(privileged.indexOf("--seccomp"), privileged.indexOf("--seccomp") + 2),
    ).toEqual(["--seccomp", "4"]);
    const tail = privileged.slice(privileged.lastIndexOf("--json-status-fd") + 3);
    expect(tail.slice(0, 4)).toEqual([
      "/run/distdebug/launch",
      "7",
      String(4096 * 1024 * 1024),
      String(256 * 1024 * 1024),
    ]);
    expect(tail.slice(4)).toEqual([
      "4096",
      "1234",
      "5678",
      "2",
      "/tmp",
      "32768",
      "/dev/shm",
      "4096",
      "1",
      "A=1",
      "--",
      "/bin/sh",
      "-c",
      "echo hi",
    ]);
    expect(privileged).not.toContain("/usr/bin/prlimit");
    const userNamespace = bwrapArgs(input({ mode: "user-namespace", env: { A: "1" } }, policy));
    expect(userNamespace.slice(-9)).toEqual([
      "-",
      "-",
      "0",
      "1",
      "A=1",
      "--",
      "/bin/sh",
      "-c",
      "echo hi",
    ]);
    expect(userNamespace).not.toContain("--setenv");
  });

  it("privileged: unshares namespaces one by one without a user namespace; refused without the launcher", () => {
    const args = bwrapArgs(input());
    for (const flag of [
      "--unshare-pid",
      "--unshare-net",
      "--unshare-ipc",
      "--unshare-uts",
      "--die-with-parent",
      "--new-session",
      "--clearenv",
    ])
      expect(args).toContain(flag);
    expect(args).not.toContain("--unshare-all");
    expect(args).not.toContain("--unshare-user");
    expect(() => bwrapArgs(input({ launcherFd: undefined }))).toThrow(/need the compiled launcher/);
  });

  it("user-namespace without the launcher: prlimit with every limit, then the command", () => {
    const args = bwrapArgs(
      input(
        { mode: "user-namespace", launcherFd: undefined },
        { limits: { processes: 9, memoryBytes: 1000, fileSizeBytes: 77 } },
      ),
    );
    expect(args.slice(args.indexOf("--") + 1)).toEqual([
      "/usr/bin/prlimit",
      "--nproc=9",
      "--as=1000",
      "--fsize=77",
      "--nofile=4096",
      "--core=0",
      "--",
      "/bin/sh",
      "-c",
      "echo hi",
    ]);
  });

  it("user-namespace: unshares everything, drops capabilities and does not call setpriv", () => {
    const args = bwrapArgs(input({ mode: "user-namespace" }));
    expect(args.slice(0, 6)).toEqual([
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--cap-drop",
      "ALL",
      "--die-with-parent",
    ]);
    expect(args).not.toContain("--cap-add");
  });

  it("binds the folders where the policy says and nothing writable else", () => {
    const args = bwrapArgs(
      input(
        { task: "/host/task", output: "/host/out" },
        { readOnlyBinds: [{ source: "/opt/jdk", target: "/opt/java" }] },
      ),
    );
    expect(pairs(args, "--bind")).toEqual([
      ["/host/ws", "/workspace"],
      ["/host/out", "/output"],
    ]);
    expect(pairs(args, "--ro-bind")).toEqual([
      ["/usr", "/usr"],
      ["/lib64", "/lib64"],
      ["/opt/jdk", "/opt/java"],
      ["/host/task", "/task"],
    ]);
    expect(pairs(args, "--symlink")).toEqual([["usr/bin", "/bin"]]);
    const tmpfs = args.lastIndexOf("--tmpfs");
    expect(args.slice(tmpfs - 10, tmpfs + 2)).toEqual([
      "--perms",
      "1777",
      "--size",
      String(64 * 1024 * 1024),
      "--tmpfs",
      "/dev/shm",
      "--perms",
      "1777",
      "--size",
      String(512 * 1024 * 1024),
      "--tmpfs",
      "/tmp",
    ]);
    // Parents of mount points are made searchable for the sandbox user.
    expect(pairs(args, "--dir").map(([dir]) => dir)).toEqual([
      "/etc",
      "/opt",
      "/run",
      "/run/distdebug",
    ]);
  });

  it("sets exactly the environment it is given, after the uid drop in privileged mode", () => {
    const env = { A: "1", LD_PRELOAD: "/workspace/x.so" };
    const userNamespace = bwrapArgs(input({ env, mode: "user-namespace", launcherFd: undefined }));
    expect(pairs(userNamespace, "--setenv")).toEqual([
      ["A", "1"],
      ["LD_PRELOAD", "/workspace/x.so"],
    ]);
    expect(userNamespace.indexOf("--clearenv")).toBeLessThan(userNamespace.indexOf("--setenv"));
    const privileged = bwrapArgs(input({ env }));
    expect(privileged).toContain("--clearenv");
    expect(privileged).not.toContain("--setenv");
    expect(privileged.slice(privileged.indexOf("LD_PRELOAD=/workspace/x.so") - 2)).toEqual([
      "2",
      "A=1",
      "LD_PRELOAD=/workspace/x.so",
      "--",
      "/bin/sh",
      "-c",
      "echo hi",
    ]);
  });

  it("binds the gateway socket only when the policy's network is gateway", () => {
    const none = bwrapArgs(input({ gatewaySocket: "/host/gw.sock" }));
    expect(none).not.toContain("/host/gw.sock");
    const gateway = bwrapArgs(input({ gatewaySocket: "/host/gw.sock" }, { network: "gateway" }));
    expect(pairs(gateway, "--bind")).toContainEqual(["/host/gw.sock", GATEWAY_SOCKET_PATH]);
    expect(gateway.join(" ")).not.toContain("--share-net");
    expect(gateway).toContain("--unshare-net");
  });
});
