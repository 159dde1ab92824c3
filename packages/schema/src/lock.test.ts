import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { DistDebugError } from "./errors.js";
import { acquireFileLock, processAlive, withFileLock } from "./lock.js";

/** A real process that takes the lock the same way (link of a whole file), then sleeps. */
function holder(lockPath: string) {
  const script = `
    const fs = require("node:fs");
    const os = require("node:os");
    const draft = ${JSON.stringify(lockPath)} + ".draft-" + process.pid;
    fs.writeFileSync(draft, process.pid + "@" + os.hostname() + "\\n");
    fs.linkSync(draft, ${JSON.stringify(lockPath)});
    fs.unlinkSync(draft);
    process.stdout.write("held\\n");
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const held = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  return { child, exited, held };
}

describe("acquireFileLock", () => {
  it("refuses a lock a live process holds, naming it, and breaks it once that process is killed", async () => {
    const dir = await testdir();
    const path = join(dir, "x.lock");
    const other = holder(path);
    await other.held;
    const refused = await acquireFileLock(path, { wait: false, what: "the folder x" }).catch(
      (error: unknown) => error,
    );
    expect(DistDebugError.isInstance(refused) && refused.code).toBe("LOCK_HELD");
    expect((refused as Error).message).toContain(
      `the folder x is in use by process ${other.child.pid}`,
    );
    other.child.kill("SIGKILL");
    await other.exited;
    expect(processAlive(other.child.pid as number)).toBe(false);
    const lock = await acquireFileLock(path, { wait: false });
    expect((await readFile(path, "utf8")).startsWith(`${process.pid}@`)).toBe(true);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it("waits for a live holder, and times out with a clear error", async () => {
    const dir = await testdir();
    const path = join(dir, "x.lock");
    const other = holder(path);
    await other.held;
    const timedOut = await acquireFileLock(path, { timeoutMs: 300, code: "WORKSPACE_ERROR" }).catch(
      (error: unknown) => error,
    );
    expect(DistDebugError.isInstance(timedOut) && timedOut.code).toBe("WORKSPACE_ERROR");
    const waiting = acquireFileLock(path, { timeoutMs: 20_000 });
    setTimeout(() => other.child.kill("SIGKILL"), 200);
    const lock = await waiting;
    await lock.release();
    await other.exited;
  });

  it("breaks an unreadable lock file only once it is a minute old", async () => {
    const dir = await testdir();
    const path = join(dir, "x.lock");
    await writeFile(path, "");
    await expect(acquireFileLock(path, { wait: false })).rejects.toThrow(/an unknown process/);
    const old = new Date(Date.now() - 120_000);
    await utimes(path, old, old);
    const lock = await acquireFileLock(path, { wait: false });
    await lock.release();
  });

  it("refuses, without spinning, a lock path it cannot read (a directory there)", async () => {
    const dir = await testdir();
    const path = join(dir, "x.lock");
    await mkdir(path);
    await expect(acquireFileLock(path, { wait: false })).rejects.toThrow(/an unknown process/);
    // Even once old enough to count as stale, it cannot be removed: refused, not spun on.
    const old = new Date(Date.now() - 120_000);
    await utimes(path, old, old);
    await expect(acquireFileLock(path, { wait: false })).rejects.toThrow(/an unknown process/);
  });

  it("lets exactly one of many concurrent takers break a stale lock", async () => {
    for (let round = 0; round < 20; round++) {
      const dir = await testdir();
      const path = join(dir, "x.lock");
      // pid 2^22 + 1 is above Linux's pid_max default: never a live process.
      await writeFile(path, `4194305@${hostname()}\n`);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, () => acquireFileLock(path, { wait: false })),
      );
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      for (const outcome of outcomes)
        if (outcome.status === "rejected") expect(outcome.reason.code).toBe("LOCK_HELD");
    }
  });

  it("gives mutual exclusion among concurrent takers", async () => {
    const dir = await testdir();
    const path = join(dir, "x.lock");
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        withFileLock(path, async () => {
          inside += 1;
          most = Math.max(most, inside);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });
});
