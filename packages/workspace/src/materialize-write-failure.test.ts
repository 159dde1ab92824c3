import { join } from "node:path";
import { DistDebugError } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it, vi } from "vitest";

/**
 * `node:fs` with a `write` that fails once (the 5th call, as on a full disk) and delays the
 * others, and a record of every write that ran on a descriptor already closed.
 */
const fsState = vi.hoisted(() => ({ calls: 0, closed: new Set<number>(), afterClose: 0 }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const write = ((fd: number, ...rest: unknown[]) => {
    const callback = rest.at(-1) as (error: NodeJS.ErrnoException | null, written?: number) => void;
    fsState.calls += 1;
    if (fsState.calls === 5) {
      const error: NodeJS.ErrnoException = new Error("ENOSPC: no space left on device, write");
      error.code = "ENOSPC";
      setImmediate(() => callback(error));
      return;
    }
    setTimeout(() => {
      if (fsState.closed.has(fd)) fsState.afterClose += 1;
      (fs.write as (...args: unknown[]) => void)(fd, ...rest);
    }, 30);
  }) as typeof fs.write;
  const openSync = ((...args: Parameters<typeof fs.openSync>) => {
    const fd = fs.openSync(...args);
    fsState.closed.delete(fd);
    return fd;
  }) as typeof fs.openSync;
  const closeSync = (fd: number) => {
    fsState.closed.add(fd);
    fs.closeSync(fd);
  };
  return { ...fs, default: { ...fs, write, openSync, closeSync }, write, openSync, closeSync };
});

const { prepareWorkspace } = await import("./prepare-workspace.js");
const { sourceFixture } = await import("./testing/fixture-repo.js");

describe("a file write that fails while a batch is written", () => {
  it("fails the prepare only after every other write of the batch ended, none on a closed descriptor", async () => {
    const source = await sourceFixture();
    const error = await prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(await testdir(), "ws"),
      needles: [],
      cacheDir: false,
    }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(DistDebugError.hasCode(error, "WORKSPACE_ERROR")).toBe(true);
    // It names the file (under the folder the workspace is built in, renamed into place at the end).
    expect((error as Error).message).toMatch(
      /^\/\S+\/\.ws\.distdebug-tmp-[^/]+\/.+: cannot write the workspace file \(ENOSPC: no space left on device, write\)$/,
    );
    expect(fsState.calls).toBeGreaterThan(5);
    // Writes delayed past the failure would have run on closed (or reused) descriptors.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fsState.afterClose).toBe(0);
  });
});
