import { cp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { editIncidentJson, exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { datasetDigest, incidentDigest, incidentDigests } from "./digest.js";

async function copyOfIncident(): Promise<string> {
  const dir = join(await testdir(), "incident");
  await cp(join(exampleDatasetDir(), "zklite-142"), dir, { recursive: true });
  return dir;
}

describe("incidentDigest", () => {
  it("covers what the agent sees of incident.json, not its layout or the labeler's fields", async () => {
    const dir = await copyOfIncident();
    const before = await incidentDigests(dir);
    expect(before.digest).toBe(await incidentDigest(dir));
    // The earlier rule hashed every file's bytes, as the dataset digest still does.
    expect(before.earlier).toEqual([await datasetDigest(dir)]);
    await editIncidentJson(dir, (incident) => {
      incident.clues = { reportNamesCausalMethod: true, usableStackTrace: true };
      incident.category = "error-handling";
    });
    const relabeled = await incidentDigests(dir);
    expect(relabeled.digest).toBe(before.digest);
    expect(relabeled.earlier).not.toEqual(before.earlier);
    await editIncidentJson(dir, (incident) => {
      incident.title = `${incident.title} (retitled)`;
    });
    expect(await incidentDigest(dir)).not.toBe(before.digest);
  });

  it("hashes an incident.json that is no JSON object as its bytes", async () => {
    const dir = await copyOfIncident();
    await writeFile(join(dir, "incident.json"), "[1, 2]");
    const list = await incidentDigest(dir);
    await writeFile(join(dir, "incident.json"), "[1,2]");
    expect(await incidentDigest(dir)).not.toBe(list);
    await writeFile(join(dir, "incident.json"), "{ not json");
    expect(await incidentDigest(dir)).toBe((await incidentDigests(dir)).earlier[0]);
  });
});
