import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import type { WorkspaceEvent } from "./events.js";
import { digestTreeSync } from "./internal/copy-tree.js";
import { checkLeakage } from "./leakage-check.js";
import { type PrepareWorkspaceResult, prepareWorkspace } from "./prepare-workspace.js";
import { type SourceFixture, sourceFixture } from "./testing/fixture-repo.js";

let source: SourceFixture;
beforeAll(async () => {
  source = await sourceFixture();
});

/** A same-size README that names the issue: only a check of the contents can tell. */
function plantKey(baseDir: string): void {
  const readme = join(baseDir, "README.md");
  const before = statSync(readme);
  const planted = `${source.issueKey} fix here.\n`;
  expect(planted.length).toBe(before.size);
  writeFileSync(readme, planted);
  utimesSync(readme, before.atime, before.mtime);
}

describe("checkLeakage with a copy's proof: one verdict per base", () => {
  let cacheDir: string;
  const prepare = async (events: WorkspaceEvent[] = []) =>
    prepareWorkspace({
      source: source.dir,
      commit: source.buggy,
      dir: join(await testdir(), "ws"),
      needles: [source.issueKey, source.fix],
      cacheDir,
      onEvent: (event) => events.push(event),
    });
  const check = (made: PrepareWorkspaceResult, needles = [source.issueKey]) =>
    checkLeakage({
      dir: made.dir,
      needles,
      fix: { repo: source.dir, commit: source.fix },
      ...(made.copyProof ? { copyProof: made.copyProof } : {}),
    });

  beforeAll(async () => {
    cacheDir = join(await testdir(), "cache");
  });

  it("checks the first copy, reuses the verdict for the next, and not under other options", async () => {
    const first = await prepare();
    expect(first.copyProof?.contentDigest).toMatch(/^[0-9a-f]{64}$/);
    const checked = await check(first);
    expect(checked).toMatchObject({ clean: true, reused: false });
    const second = await prepare();
    expect(second.copyProof?.contentDigest).toBe(first.copyProof?.contentDigest);
    expect(await check(second)).toEqual({ ...checked, reused: true });
    expect((await check(second, [source.issueKey, "another-needle"])).reused).toBe(false);
    // A proof binds its own folder only.
    await expect(
      checkLeakage({ dir: second.dir, copyProof: first.copyProof ?? second.copyProof! }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("never hands out a base changed after its verdict: same-size edits rebuild the base", async () => {
    const first = await prepare();
    expect((await check(first)).clean).toBe(true);
    plantKey(first.baseDir ?? "");
    const events: WorkspaceEvent[] = [];
    const next = await prepare(events);
    expect(events.map((event) => event.type)).toContain("cache-discard");
    // The rebuilt entry is checked anew (its verdicts went with the discarded one).
    expect(await check(next)).toMatchObject({ clean: true, reused: false });
    expect(readFileSync(join(next.dir, "README.md"), "utf8")).toBe("# Example\n\nSee the docs.\n");
  });

  it("checks again when the base and its record were changed after the verdict", async () => {
    const first = await prepare();
    expect((await check(first)).clean).toBe(true);
    // The base and its completion record changed together (a copy then matches the record):
    // the copy's contents are not those the verdict was given for.
    const baseDir = first.baseDir ?? "";
    plantKey(baseDir);
    const marker = join(dirname(baseDir), "complete.json");
    const record = JSON.parse(readFileSync(marker, "utf8"));
    writeFileSync(
      marker,
      JSON.stringify({ ...record, contentDigest: digestTreeSync(baseDir).contentDigest }),
    );
    const events: WorkspaceEvent[] = [];
    const next = await prepare(events);
    expect(events.map((event) => event.type)).not.toContain("cache-discard");
    expect(next.copyProof?.contentDigest).not.toBe(first.copyProof?.contentDigest);
    const report = await check(next);
    expect(report.reused).toBe(false);
    expect(report.clean).toBe(false);
    expect(report.findings).toContainEqual(
      expect.objectContaining({ kind: "needle", file: "README.md", line: 1 }),
    );
    // A leaking verdict is not kept: the next copy is checked again.
    expect((await check(await prepare())).reused).toBe(false);
  });
});
