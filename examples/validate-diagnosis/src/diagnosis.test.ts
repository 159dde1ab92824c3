import { fileURLToPath } from "node:url";
import { DistDebugError, jsonSchemaOf } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { checkDiagnosisFile } from "./check-diagnosis.js";

const written = fileURLToPath(new URL("../agent-output/diagnosis.json", import.meta.url));

describe("the diagnosis.json my agent writes", () => {
  it("is a valid distdebug.diagnosis/1 for the incident", async () => {
    const diagnosis = await checkDiagnosisFile(written, "zklite-142");
    expect(diagnosis.blocks).toHaveLength(2);
    expect(diagnosis.blocks[1]).toEqual({
      symbol: "SessionTrackerImpl.touchSession",
      reason: "touches the session without moving it to the new bucket",
    });
  });

  it("fails with a message that names the file and each bad JSON path", async () => {
    const dir = await testdir({
      "diagnosis.json": JSON.stringify({
        format: "distdebug.diagnosis/1",
        incidentId: "zklite-142",
        blocks: [{ startLine: 0 }, { path: "a.java", endLine: 3 }],
      }),
    });
    const error = await checkDiagnosisFile(`${dir}/diagnosis.json`, "zklite-142").catch(
      (caught: unknown) => caught,
    );
    expect(DistDebugError.isInstance(error) && error.code).toBe("INVALID_FILE");
    const message = (error as Error).message;
    expect(message).toContain(
      `${dir}/diagnosis.json: not a valid diagnosis (distdebug.diagnosis/1)`,
    );
    expect(message).toContain("$.blocks[0].startLine: expected a number >= 1");
    expect(message).toContain("$.blocks[0].path: expected a path or a symbol, found nothing");
    expect(message).toContain("$.blocks[1].startLine: expected startLine when endLine is given");
  });

  it("catches a diagnosis for the wrong incident, and an empty one", async () => {
    const dir = await testdir({
      "other.json": JSON.stringify({
        format: "distdebug.diagnosis/1",
        incidentId: "etcd-1",
        blocks: [{ path: "a.go" }],
      }),
      "empty.json": JSON.stringify({
        format: "distdebug.diagnosis/1",
        incidentId: "zklite-142",
        blocks: [],
      }),
    });
    await expect(checkDiagnosisFile(`${dir}/other.json`, "zklite-142")).rejects.toThrow(
      '$.incidentId: expected "zklite-142", found "etcd-1"',
    );
    await expect(checkDiagnosisFile(`${dir}/empty.json`, "zklite-142")).rejects.toThrow(
      "$.blocks: names no code",
    );
  });

  it("has a JSON Schema for agents written in other languages", () => {
    const schema = jsonSchemaOf("diagnosis") as { properties?: Record<string, unknown> };
    expect(Object.keys(schema.properties ?? {})).toEqual(
      expect.arrayContaining(["format", "incidentId", "blocks"]),
    );
  });
});
