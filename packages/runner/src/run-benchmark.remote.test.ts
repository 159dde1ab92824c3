import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildIncidentRepository, loadDataset } from "@distdebug/dataset";
import { ATTEMPT_FILES, attemptDir } from "@distdebug/results";
import { parseDiagnosisScores, parseRunConfig } from "@distdebug/schema";
import {
  exampleDatasetDir,
  type GitHttpServer,
  gitHttpServer,
  testdir,
} from "@distdebug/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBenchmark } from "./run-benchmark.js";
import { scoreResults } from "./score-results.js";

const exampleDir = exampleDatasetDir();
const ID = "zklite-142";
let server: GitHttpServer;
let datasetDir: string;

/**
 * A one-incident dataset whose repository is remote, as in the catalog: the example
 * incident's history built into a bare repository and served by a loopback git server.
 */
async function remoteDataset(url: string, labeled = true): Promise<string> {
  const dir = join(await testdir(), "dataset");
  await cp(join(exampleDir, ID), join(dir, ID), { recursive: true });
  await rm(join(dir, ID, "repo"), { recursive: true });
  if (!labeled) await rm(join(dir, ID, "gold.json"));
  const incidentPath = join(dir, ID, "incident.json");
  const incident = JSON.parse(await readFile(incidentPath, "utf8"));
  incident.repository = { url, buggyCommit: incident.repository.buggyCommit };
  await writeFile(incidentPath, `${JSON.stringify(incident, null, 2)}\n`);
  await writeFile(
    join(dir, "dataset.json"),
    JSON.stringify({
      format: "distdebug.dataset/1",
      name: "remote",
      version: "1",
      incidents: [ID],
      requireGold: labeled,
    }),
  );
  return dir;
}

beforeAll(async () => {
  const served = await testdir();
  const local = (await loadDataset(exampleDir)).incidents.find((entry) => entry.id === ID)!;
  const built = await buildIncidentRepository(local, { cacheDir: served });
  server = await gitHttpServer(join(served, "repos"));
  datasetDir = await remoteDataset(server.url(built.gitdir.split("/").at(-1)!));
});

afterAll(() => server.close());

describe("runBenchmark on an incident whose repository is remote", () => {
  it("clones it once over HTTP into the cache, then runs, leak-checks and scores every attempt", async () => {
    const dataset = await loadDataset(datasetDir);
    expect(dataset.incidents[0]!.repository.kind).toBe("remote");
    const cacheDir = await testdir();
    const outDir = join(await testdir(), "results");
    const config = parseRunConfig({ name: "remote", agent: { type: "baseline" } });
    const result = await runBenchmark({ config, dataset, outDir, cacheDir, attempts: 2 });
    expect(result.attempts.map((record) => [record.status, record.error?.message])).toEqual([
      ["succeeded", undefined],
      ["succeeded", undefined],
    ]);
    // Scored: the metrics live in diagnosis_scores.json (attempt.json keeps no copy).
    const first = result.attempts[0]!;
    const scores = parseDiagnosisScores(
      await readFile(
        join(attemptDir(outDir, first.incidentId, first.attempt), ATTEMPT_FILES.scores),
        "utf8",
      ),
    );
    expect(scores.metrics.blockCoverage).toBeGreaterThanOrEqual(0);
    // One clone for both attempts: git's clone posts once or twice (protocol v2 lists refs
    // with a POST too); a second clone would post again.
    const packs = server.requests.filter((request) => request.startsWith("POST"));
    expect(packs.length).toBeGreaterThan(0);
    expect(packs.length).toBeLessThanOrEqual(2);
  });

  it.each([
    ["http://127.0.0.1:9/nothing.git", /could not clone http:\/\/127\.0\.0\.1:9\/nothing\.git/],
    // Fails before any I/O: the rejection must still reach the attempts, not end the process.
    ["ssh://127.0.0.1/nothing.git", /only http\(s\) URLs and local paths are supported/],
  ])(
    "records an unusable repository (%s) as an infra error per attempt, without crashing",
    async (url, message) => {
      const dataset = await loadDataset(await remoteDataset(url));
      const result = await runBenchmark({
        config: parseRunConfig({ name: "unreachable", agent: { type: "baseline" } }),
        dataset,
        outDir: join(await testdir(), "results"),
        cacheDir: await testdir(),
        attempts: 2,
      });
      expect(result.attempts.map((record) => record.status)).toEqual([
        "infra-error",
        "infra-error",
      ]);
      expect(result.attempts[0]!.error?.message).toMatch(message);
    },
  );

  it("scores a run of an unlabeled remote incident without touching its repository", async () => {
    const dir = await remoteDataset("http://127.0.0.1:9/nothing.git", false);
    const dataset = await loadDataset(dir);
    const outDir = join(await testdir(), "results");
    const cacheDir = await testdir();
    const config = parseRunConfig({ name: "catalog", agent: { type: "baseline" } });
    await runBenchmark({ config, dataset, outDir, cacheDir, attempts: 1 });
    const scored = await scoreResults({ outDir, dataset, cacheDir, attempts: 1 });
    expect(scored.unscored).toEqual([ID]);
    expect(scored.summary.counts.scoredIncidents).toBe(0);
    expect(scored.summary.metrics.blockCoverage?.n).toBe(0);
  });
});
