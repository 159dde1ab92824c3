import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer as createNetServer, type Server } from "node:net";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { createSandbox } from "./create-sandbox.js";
import type { SandboxEvent } from "./events.js";
import { isRoot, processesOfUid } from "./testing/test-support.js";

// A uid of its own, so the host-side listings of this file do not see other test files.
const user = { uid: 61_001, gid: 61_001 };
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function listen(server: Server, path?: string): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) =>
    path ? server.listen(path, resolve) : server.listen(0, "127.0.0.1", resolve),
  );
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}

async function sandboxFor(extra: { task?: string; output?: string } = {}, policy = {}) {
  const workspace = await testdir({ "README.md": "workspace\n" });
  return createSandbox({
    workspace,
    ...extra,
    policy: { user, limits: { timeoutMs: 20_000 }, ...policy },
  });
}

describe("bubblewrap escapes", () => {
  it("blocks a TCP connect to a server on the host's 127.0.0.1 (the same command works unsandboxed)", async () => {
    let connections = 0;
    const port = await listen(
      createNetServer((socket) => {
        connections += 1;
        socket.end("secret-banner\n");
      }),
    );
    const script = `perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:${port}", Timeout => 3) or die "connect failed: $!\\n"; print <$s>'`;
    const control = await createSandbox({
      workspace: await testdir(),
      policy: { backend: "no-sandbox" },
    });
    const reached = await control.exec(script);
    expect(reached.stdout).toContain("secret-banner");
    expect(connections).toBe(1);

    const sandbox = await sandboxFor();
    const result = await sandbox.exec(script);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("connect failed");
    expect(result.stdout).not.toContain("secret-banner");
    expect(connections).toBe(1);
    const links = await sandbox.exec("cat /proc/net/dev");
    expect(links.stdout).toMatch(/\blo:/);
    expect(links.stdout.split("\n").filter((line) => line.includes(":")).length).toBe(1);
  });

  it("fails DNS lookups", async () => {
    const sandbox = await sandboxFor();
    const result = await sandbox.exec(
      "getent hosts example.com || echo lookup-failed; test -e /etc/resolv.conf && echo has-resolv",
    );
    expect(result.stdout.trim()).toBe("lookup-failed");
  });

  it("hides host files: a secret outside the binds, the gold file beside the task, /root", async () => {
    const dataset = await testdir({
      "incident-1/task/incident.json": '{"id":"incident-1"}\n',
      "incident-1/gold.json": '{"blocks":"GOLD-NEEDLE-42"}\n',
      "secret.txt": "HOST-SECRET-7\n",
    });
    const task = join(dataset, "incident-1/task");
    const sandbox = await sandboxFor({ task });
    const result = await sandbox.exec(
      `cat ${join(dataset, "secret.txt")} ${join(dataset, "incident-1/gold.json")}; ls /root; cat /etc/shadow; cat /task/incident.json; cat /task/../gold.json; grep -rs GOLD-NEEDLE /workspace /task /tmp /etc /run; find /task /workspace /tmp -name gold.json; echo done`,
    );
    expect(result.stdout).toContain('{"id":"incident-1"}');
    expect(result.stdout).not.toContain("HOST-SECRET-7");
    expect(result.stdout).not.toContain("GOLD-NEEDLE");
    expect(result.stdout).not.toContain("gold.json");
    expect(result.stderr).toMatch(/No such file/);
    expect(result.stdout).not.toMatch(/^root:/m);
    expect(result.stdout.trim().endsWith("done")).toBe(true);
  });

  it("rejects writes outside /workspace, /output and /tmp and keeps the allowed ones", async () => {
    const output = await testdir();
    const task = await testdir({ "incident.json": "{}\n" });
    const sandbox = await sandboxFor({ task, output });
    const targets = ["/usr/x", "/etc/x", "/x", "/task/x", "/bin/x", "/proc/x", "/run/x"];
    const result = await sandbox.exec(
      `${targets.map((path) => `(echo x > ${path}) 2>/dev/null && echo "wrote ${path}"`).join("; ")}; echo w > /workspace/w.txt && echo o > /output/o.txt && echo t > /tmp/t.txt && echo allowed`,
    );
    expect(result.stdout).not.toContain("wrote");
    expect(result.stdout).toContain("allowed");
    expect(readFileSync(join(output, "o.txt"), "utf8")).toBe("o\n");
    expect(existsSync(join(task, "x"))).toBe(false);
  });

  it("clears the environment: OPENAI_API_KEY of the parent is absent inside", async () => {
    process.env.OPENAI_API_KEY = "sk-parent-should-not-leak";
    try {
      const sandbox = await sandboxFor();
      const result = await sandbox.exec(
        "env; cat /proc/1/environ /proc/self/environ | tr '\\0' '\\n'",
        {
          env: { EXTRA: "named-by-exec" },
        },
      );
      expect(result.stdout).not.toContain("sk-parent-should-not-leak");
      expect(result.stdout).not.toContain("OPENAI_API_KEY");
      expect(result.stdout).toContain("EXTRA=named-by-exec");
      expect(result.stdout).toContain("PATH=/usr/local/bin:/usr/bin:/bin");
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it.runIf(isRoot)(
    "gives the policy's environment only to the unprivileged command, never to root helpers",
    async () => {
      // A loader variable naming a missing library makes every dynamically linked program that
      // sees it print a loader error: root stages (prlimit, setpriv) must not see it.
      const sandbox = await sandboxFor(
        {},
        { env: { PATH: "/usr/bin:/bin", LD_PRELOAD: "/nonexistent/evil.so" } },
      );
      const result = await sandbox.exec("echo $LD_PRELOAD");
      expect(result.stdout).toBe("/nonexistent/evil.so\n");
      const loaderErrors = result.stderr.split("\n").filter((line) => line.includes("evil.so"));
      // Only sh, started by `env -i` after the uid drop, sees it; prlimit and setpriv (root) must not.
      expect(loaderErrors).toHaveLength(1);
    },
  );

  it("shows only the sandbox's own processes in /proc", async () => {
    const sandbox = await sandboxFor();
    const result = await sandbox.exec(
      "for p in /proc/[0-9]*; do echo $(basename $p) $(cat $p/comm); done",
    );
    const entries = result.stdout.trim().split("\n");
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length).toBeLessThanOrEqual(4);
    expect(result.stdout).not.toMatch(/node|vitest/);
    expect(entries.map((line) => Number(line.split(" ")[0]))).not.toContain(process.pid);
  });

  it.runIf(isRoot)(
    "runs as the policy's unprivileged uid with no capabilities and hands it the workspace",
    async () => {
      const sandbox = await sandboxFor();
      const result = await sandbox.exec(
        "id -u; grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status; stat -c %u /workspace",
      );
      expect(result.stdout).toContain(`${user.uid}\n`);
      expect(result.stdout).toMatch(/CapEff:\s+0+\n/);
      expect(result.stdout).toMatch(/CapBnd:\s+0+\n/);
      expect(sandbox.mode).toBe("privileged");
      expect(processesOfUid(user.uid)).toEqual([]);
    },
  );

  it("binds the gateway socket, and only it, when the network is gateway", async () => {
    const dir = await testdir();
    const socketPath = join(dir, "gateway.sock");
    await listen(
      createNetServer((socket) => socket.end("gateway-hello\n")),
      socketPath,
    );
    const client = `perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Peer => $ENV{DISTDEBUG_GATEWAY_SOCKET}) or die "no gateway: $!\\n"; print <$s>'`;
    const workspace = await testdir();
    const events: SandboxEvent[] = [];
    const sandbox = await createSandbox({
      workspace,
      gateway: socketPath,
      policy: { user, network: "gateway" },
      onEvent: (event) => events.push(event),
    });
    const { chmod } = await import("node:fs/promises");
    await chmod(socketPath, 0o777);
    const result = await sandbox.exec(client);
    expect(result.stdout).toBe("gateway-hello\n");
    expect(events.map((event) => event.type)).toEqual(["command-start", "command-end"]);

    const closed = await createSandbox({ workspace, gateway: socketPath, policy: { user } });
    const denied = await closed.exec(
      `DISTDEBUG_GATEWAY_SOCKET=/run/distdebug/gateway.sock; export DISTDEBUG_GATEWAY_SOCKET; ${client}`,
    );
    expect(denied.stdout).not.toContain("gateway-hello");
    expect(denied.stderr).toContain("no gateway");
  });

  it("keeps the same isolation in user-namespace mode", async () => {
    const workspace = await testdir();
    await writeFile(join(workspace, "f.txt"), "ws\n");
    const sandbox = await createSandbox({ workspace, mode: "user-namespace", policy: { user } });
    const result = await sandbox.exec(
      "cat f.txt; cat /proc/net/dev | grep -c :; cat /proc/self/uid_map | wc -l; ls /proc | grep -c '^[0-9]'",
    );
    expect(sandbox.mode).toBe("user-namespace");
    expect(result.exitCode).toBe(0);
    const [content, links, maps, processes] = result.stdout.trim().split("\n");
    expect(content).toBe("ws");
    expect(links).toBe("1");
    expect(maps).toBe("1");
    expect(Number(processes)).toBeLessThanOrEqual(4);
  });
});
