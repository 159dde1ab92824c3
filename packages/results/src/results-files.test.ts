import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Attempt, DistDebugError, SandboxPolicy, serialize } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { attemptInputHash, legacyAttemptInputHash } from "./attempt-identity.js";
import {
  listAttemptFolders,
  readFinishedAttempt,
  readRunInfo,
  readSummary,
} from "./results-files.js";

const IDENTITY = {
  harnessVersion: "0.1.0",
  configHash: "c".repeat(64),
  incidentId: "a-1",
  incidentDigest: "d".repeat(64),
  attempt: 1,
};
const HASH = attemptInputHash(IDENTITY);

function attempt(
  status: Attempt["status"],
  inputHash = HASH,
  incidentDigest: string | null = IDENTITY.incidentDigest,
): string {
  const record: Attempt = {
    format: "distdebug.attempt/1",
    incidentId: "a-1",
    attempt: 1,
    status,
    startedAt: "2026-12-02T10:00:00.000Z",
    endedAt: "2026-12-02T10:00:01.000Z",
    durationMs: 1000,
    timings: {},
    usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, calls: 0, costUsd: null },
    inputHash,
    ...(incidentDigest ? { incidentDigest } : {}),
    outputs: {},
    sandbox: { backend: "bubblewrap", policy: SandboxPolicy.parse({}) },
  };
  return serialize(record);
}

describe("listAttemptFolders", () => {
  it("lists attempt folders by incident, then attempt number", async () => {
    const outDir = await testdir({
      "run.json": "{}",
      "b-2/attempt-10/attempt.json": "{}",
      "b-2/attempt-2/attempt.json": "{}",
      "b-2/.attempt-3.partial-00000000/attempt.json": "{}",
      "b-2/notes/x": "",
      "a-1/attempt-1/attempt.json": "{}",
    });
    expect(await listAttemptFolders(outDir)).toEqual([
      { incidentId: "a-1", attempt: 1, dir: join(outDir, "a-1/attempt-1") },
      { incidentId: "b-2", attempt: 2, dir: join(outDir, "b-2/attempt-2") },
      { incidentId: "b-2", attempt: 10, dir: join(outDir, "b-2/attempt-10") },
    ]);
  });
});

describe("readFinishedAttempt", () => {
  it("reads finished attempts of the same inputs only", async () => {
    const dir = await testdir({
      "done/attempt.json": attempt("agent-error"),
      "other/attempt.json": attempt("succeeded", "b".repeat(64)),
      "infra/attempt.json": attempt("infra-error"),
      "invalid/attempt.json": "{",
    });
    expect((await readFinishedAttempt(join(dir, "done"), IDENTITY))?.status).toBe("agent-error");
    for (const name of ["other", "infra", "invalid", "missing"])
      expect(await readFinishedAttempt(join(dir, name), IDENTITY), name).toBeUndefined();
  });

  it("refuses an attempt of another version of its incident, whatever its hash", async () => {
    const dir = await testdir({ "done/attempt.json": attempt("succeeded", HASH, "e".repeat(64)) });
    expect(await readFinishedAttempt(join(dir, "done"), IDENTITY)).toBeUndefined();
  });

  it("migrates an attempt written before per-incident identities while its dataset is unchanged", async () => {
    const datasetDigest = "f".repeat(64);
    const legacy = legacyAttemptInputHash({ ...IDENTITY, datasetDigest });
    const dir = await testdir({
      "old/attempt.json": attempt("succeeded", legacy, null),
      "changed/attempt.json": attempt("succeeded", legacy, null),
    });
    const migrated = await readFinishedAttempt(join(dir, "old"), { ...IDENTITY, datasetDigest });
    expect(migrated).toMatchObject({ inputHash: HASH, incidentDigest: IDENTITY.incidentDigest });
    const onDisk = JSON.parse(await readFile(join(dir, "old/attempt.json"), "utf8"));
    expect(onDisk).toMatchObject({ inputHash: HASH, incidentDigest: IDENTITY.incidentDigest });
    // Read again with the new identity only: it is now a current attempt.
    expect(await readFinishedAttempt(join(dir, "old"), IDENTITY)).toMatchObject({
      status: "succeeded",
    });
    // The dataset changed since: which incident changed is unknown, so it is redone.
    const other = { ...IDENTITY, datasetDigest: "0".repeat(64) };
    expect(await readFinishedAttempt(join(dir, "changed"), other)).toBeUndefined();
  });
});

describe("readRunInfo and readSummary", () => {
  it("return undefined for a missing file unless it is required", async () => {
    const outDir = await testdir();
    expect(await readRunInfo(outDir)).toBeUndefined();
    expect(await readSummary(outDir)).toBeUndefined();
    const error = await readSummary(outDir, { required: true }).catch((caught) => caught);
    expect(DistDebugError.isInstance(error) && error.code).toBe("FILE_NOT_FOUND");
    expect(error.message).toContain(`run \`distdebug score ${outDir}\` first`);
    await expect(readRunInfo(outDir, { required: true })).rejects.toThrow(
      /run.json: no such file; is .* a results folder made by distdebug run\?/,
    );
  });

  it("name the file of an invalid run.json", async () => {
    const outDir = await testdir({ "run.json": "{}" });
    const error = await readRunInfo(outDir).catch((caught) => caught);
    expect(DistDebugError.isInstance(error) && error.code).toBe("INVALID_FILE");
    expect(error.message).toContain(join(outDir, "run.json"));
  });
});
