import { readdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it, vi } from "vitest";
import { acquireFileLock } from "./lock.js";

// A file system without hard links (some FUSE, SMB and 9p mounts): link() fails with EPERM.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...actual,
    link: async () => {
      throw Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" });
    },
  };
});

describe("acquireFileLock where hard links are not supported", () => {
  it("takes, refuses, breaks a dead holder's lock and releases with exclusive creates", async () => {
    const dir = await testdir();
    const path = join(dir, "x.lock");
    const lock = await acquireFileLock(path, { wait: false });
    expect((await readFile(path, "utf8")).trim()).toBe(`${process.pid}@${hostname()}`);
    await expect(acquireFileLock(path, { wait: false })).rejects.toMatchObject({
      code: "LOCK_HELD",
    });
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
    await writeFile(path, `4194305@${hostname()}\n`);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, () => acquireFileLock(path, { wait: false })),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
  });
});
