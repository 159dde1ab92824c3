import { readFileSync } from "node:fs";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { createSandbox } from "./create-sandbox.js";
import type { SandboxEvent } from "./events.js";
import { NO_SANDBOX_WARNING } from "./sandbox.js";

describe("no-sandbox backend", () => {
  it("is explicit and loud: a warning on the sandbox and a sandbox-warn event per command", async () => {
    const workspace = await testdir();
    const output = await testdir();
    const events: SandboxEvent[] = [];
    const sandbox = await createSandbox({
      workspace,
      output,
      policy: { backend: "no-sandbox" },
      onEvent: (event) => events.push(event),
    });
    expect(sandbox.backend).toBe("no-sandbox");
    expect(sandbox.warning).toBe(NO_SANDBOX_WARNING);
    const result = await sandbox.exec('pwd; echo out > "$DISTDEBUG_OUTPUT/o.txt"', {
      cwd: "/workspace",
    });
    expect(result.stdout.trim()).toBe(workspace);
    expect(readFileSync(join(output, "o.txt"), "utf8")).toBe("out\n");
    expect(events.filter((event) => event.type === "sandbox-warn")).toHaveLength(2);
    expect(events.at(-1)?.type).toBe("command-end");
  });

  it("still clears the environment and applies the timeout and output caps", async () => {
    process.env.OPENAI_API_KEY = "sk-parent-should-not-leak";
    try {
      const sandbox = await createSandbox({
        workspace: await testdir(),
        policy: { backend: "no-sandbox", limits: { outputBytes: 10 } },
      });
      const env = await sandbox.exec("env");
      expect(env.stdout).not.toContain("sk-parent");
      expect(env.truncated).toBe(true);
      const slow = await sandbox.exec("sleep 5", { timeoutMs: 200 });
      expect(slow.timedOut).toBe(true);
      expect(slow.signal).toBe("SIGKILL");
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it("refuses commands after dispose", async () => {
    const sandbox = await createSandbox({
      workspace: await testdir(),
      policy: { backend: "no-sandbox" },
    });
    await sandbox.dispose();
    await expect(sandbox.exec("true")).rejects.toMatchObject({ code: "SANDBOX_ERROR" });
  });
});
