import { type Dataset, type DatasetIncident, loadDataset } from "@distdebug/dataset";
import { exampleDatasetDir, testdir } from "@distdebug/test-utils";
import { beforeAll, describe, expect, it } from "vitest";
import { incidentPreparer } from "./incident-preparer.js";

let dataset: Dataset;
let cacheDir: string;

beforeAll(async () => {
  dataset = await loadDataset(exampleDatasetDir());
  cacheDir = await testdir();
});

describe("incidentPreparer", () => {
  it("prepares an incident once for all its attempts, and again after it is released", async () => {
    const preparer = incidentPreparer({ cacheDir, onEvent: () => {} });
    const incident = dataset.incidents[0]!;
    const first = preparer.prepare(incident);
    expect(preparer.prepare(incident)).toBe(first);
    const prepared = await first;
    // Scoring opens the incident's object reader; releasing closes it.
    expect(prepared.scorer).toBeDefined();
    await preparer.release(incident);
    const again = preparer.prepare(incident);
    expect(again).not.toBe(first);
    await again;
    await preparer.close();
    expect(preparer.prepare(incident)).not.toBe(again);
    await preparer.close();
  });

  it("closes a run whose preparation failed without throwing", async () => {
    const preparer = incidentPreparer({ cacheDir, onEvent: () => {} });
    const broken: DatasetIncident = {
      ...dataset.incidents[0]!,
      id: "broken-1",
      dir: `${await testdir()}/missing`,
    };
    await expect(preparer.prepare(broken)).rejects.toBeDefined();
    await expect(preparer.release(broken)).resolves.toBeUndefined();
    await expect(preparer.close()).resolves.toBeUndefined();
  });
});
