import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { SUBMIT_SENTINEL } from "@distdebug/agents";
import { type Dataset, loadDataset } from "@distdebug/dataset";
import { DiagnosisScores, parseRunConfig } from "@distdebug/schema";
import {
  exampleDatasetDir,
  type FakeModelServer,
  LEASEKV_SEARCH_COMMANDS,
  LEASEKV_WRONG_DIAGNOSIS,
  openAiBody,
  startFakeModelServer,
  testdir,
} from "@distdebug/test-utils";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { runBenchmark } from "./run-benchmark.js";
import { scoreResults } from "./score-results.js";

let dataset: Dataset;
let cacheDir: string;
let server: FakeModelServer | undefined;
beforeAll(async () => {
  dataset = await loadDataset(exampleDatasetDir());
  cacheDir = await testdir();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const bash = (command: string) => `THOUGHT: next.\n\n\`\`\`bash\n${command}\n\`\`\``;
const SCRIPT = [...LEASEKV_SEARCH_COMMANDS, LEASEKV_WRONG_DIAGNOSIS, `echo ${SUBMIT_SENTINEL}`];

async function runScripted(script: readonly string[]) {
  let replies = 0;
  server = await startFakeModelServer(() => {
    replies += 1;
    const command = script[replies - 1] ?? `echo ${SUBMIT_SENTINEL}`;
    return { body: openAiBody(bash(command), { input: 1000 * replies, output: 10, cached: 0 }) };
  });
  const outDir = join(await testdir(), "results");
  const config = parseRunConfig({
    name: "mini-search",
    agent: { type: "mini", wallTimeLimitSec: 120 },
    model: {
      provider: "openai",
      name: "fake-model",
      baseUrl: `${server.url}/v1`,
      apiKeyEnv: "TEST_MODEL_KEY",
    },
    run: { attempts: 1 },
  });
  const result = await runBenchmark({
    config,
    dataset,
    incidents: dataset.incidents.filter((incident) => incident.id === "leasekv-77"),
    outDir,
    cacheDir,
    env: { TEST_MODEL_KEY: "sk-test" },
  });
  const dir = join(outDir, "leasekv-77", "attempt-1");
  const text = await readFile(join(dir, "diagnosis_scores.json"), "utf8");
  return { result, outDir, text, scores: DiagnosisScores.parse(JSON.parse(text)) };
}

describe("the search path of a scripted mini agent run", () => {
  // A real sandboxed run of eight model turns plus scoring in a worker thread: seconds to tens
  // of seconds on a loaded 2-core machine.
  it("classes and turns exactly as scripted; `score` reproduces the bytes and summarizes them", {
    timeout: 180_000,
  }, async () => {
    const { result, outDir, text, scores } = await runScripted(SCRIPT);
    expect(result.attempts[0]?.status).toBe("succeeded");
    expect(scores.metrics.blockCoverage).toBe(0);
    expect(scores.search).toMatchObject({
      observed: true,
      turns: 8,
      causalFilesShown: ["lease/lessor.go"],
      causalBlocksShown: [0],
      firstCausalFileStep: 4,
      firstCausalBlockStep: 6,
      tokensToFirstCausalFile: 1000 + 2000 + 3000 + 4000 + 40,
      tokensToFirstCausalBlock: 21_000 + 60,
      blocks: [
        { outcome: "shown-not-named", fileStep: 4, blockStep: 6 },
        { outcome: "never-shown", fileStep: null, blockStep: null },
      ],
    });
    expect(scores.search?.secondsToFirstCausalBlock).toBeGreaterThanOrEqual(
      scores.search?.secondsToFirstCausalFile ?? Number.POSITIVE_INFINITY,
    );

    const rescored = await scoreResults({
      outDir,
      dataset,
      cacheDir,
      resamples: 200,
      write: false,
      rescore: true,
    });
    expect(rescored.rescored).toBe(1);
    expect(rescored.changed).toBe(0);
    const search = rescored.summary.search;
    expect(search?.shares["shown-not-named"].mean).toBe(0.5);
    expect(search?.shares["never-shown"].mean).toBe(0.5);
    expect(search?.toFirstCausalBlock).toEqual({
      attempts: 1,
      steps: { q1: 6, median: 6, q3: 6 },
      tokens: { q1: 21_060, median: 21_060, q3: 21_060 },
    });
    expect(rescored.summary.incidents[0]?.search?.["shown-not-named"]).toBe(0.5);
    expect(text).toContain('"search"');
  });

  it("an agent that never reads the causal files: never-shown", { timeout: 180_000 }, async () => {
    const { scores } = await runScripted([
      "ls",
      "cat -n server/idgen.go",
      LEASEKV_WRONG_DIAGNOSIS,
      `echo ${SUBMIT_SENTINEL}`,
    ]);
    expect(scores.search?.blocks.map((block) => block.outcome)).toEqual([
      "never-shown",
      "never-shown",
    ]);
    expect(scores.search?.firstCausalFileStep).toBeNull();
  });
});
