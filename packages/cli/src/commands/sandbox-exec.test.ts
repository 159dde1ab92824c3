import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";

describe("distdebug sandbox exec", () => {
  it("runs a shell command line under bubblewrap and reports how it ended", async () => {
    const workspace = await testdir({ "hello.txt": "from the workspace\n" });
    const io = captureIO({ cwd: workspace, env: { OPENAI_API_KEY: "sk-x" } });
    const code = await runCli(
      [
        "sandbox",
        "exec",
        "--workspace",
        ".",
        "--chown",
        "--",
        "cat hello.txt; pwd; env | grep -c OPENAI",
      ],
      io,
    );
    expect(io.out()).toBe("from the workspace\n/workspace\n0\n");
    expect(io.err()).toMatch(
      /^\[sandbox bubblewrap\/(privileged|user-namespace): exit 1, \d+ ms\]\n$/,
    );
    expect(code).toBe(1);
  });

  it("--json gives the result, --timeout kills the command", async () => {
    const workspace = await testdir();
    const io = captureIO({ cwd: workspace });
    const code = await runCli(
      [
        "sandbox",
        "exec",
        "--workspace",
        workspace,
        "--timeout",
        "300ms",
        "--json",
        "--",
        "sleep",
        "30",
      ],
      io,
    );
    expect(code).toBe(1);
    const report = JSON.parse(io.out());
    expect(report.ok).toBe(false);
    expect(report.backend).toBe("bubblewrap");
    expect(report.result).toMatchObject({ timedOut: true, limitHit: "timeout", exitCode: null });
  });

  it("reads a JSON policy file and names the bad field of an invalid one", async () => {
    const workspace = await testdir();
    await writeFile(join(workspace, "policy.json"), JSON.stringify({ env: { GREETING: "hi" } }));
    await writeFile(join(workspace, "bad.json"), JSON.stringify({ limits: { timeoutMs: -1 } }));
    const io = captureIO({ cwd: workspace });
    expect(
      await runCli(
        ["sandbox", "exec", "--workspace", ".", "--policy", "policy.json", "--", "env | sort"],
        io,
      ),
    ).toBe(0);
    expect(io.out()).toBe("GREETING=hi\nPWD=/workspace\n");
    const bad = captureIO({ cwd: workspace });
    expect(
      await runCli(
        ["sandbox", "exec", "--workspace", ".", "--policy", "bad.json", "--", "true"],
        bad,
      ),
    ).toBe(2);
    expect(bad.err()).toContain("bad.json: not a valid sandbox policy");
    expect(bad.err()).toContain("$.limits.timeoutMs");
  });

  it("warns loudly on the no-sandbox backend", async () => {
    const workspace = await testdir();
    const io = captureIO({ cwd: workspace });
    expect(
      await runCli(
        [
          "sandbox",
          "exec",
          "--workspace",
          ".",
          "--backend",
          "no-sandbox",
          "--chown",
          "--",
          "echo x > out.txt",
        ],
        io,
      ),
    ).toBe(0);
    expect(io.err()).toContain("WARNING: UNSAFE");
    expect(readFileSync(join(workspace, "out.txt"), "utf8")).toBe("x\n");
  });

  it("usage errors exit 2", async () => {
    const io = captureIO();
    expect(await runCli(["sandbox", "exec", "--", "true"], io)).toBe(2);
    expect(io.err()).toContain("--workspace is required");
    const mode = captureIO();
    expect(
      await runCli(["sandbox", "exec", "--workspace", ".", "--mode", "docker", "--", "true"], mode),
    ).toBe(2);
    expect(mode.err()).toContain("--mode");
  });
});
