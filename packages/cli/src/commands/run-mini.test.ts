import { access, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parseAttempt, parseDiagnosisScores, parseTrajectory } from "@distdebug/schema";
import { testdir } from "@distdebug/test-utils";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { repoRoot } from "../testing/spawn-cli.js";

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe("distdebug run with a model agent", () => {
  it.each([
    ["gpt-5.4.yaml", "OPENAI_API_KEY"],
    ["claude-opus-5.5.yaml", "ANTHROPIC_API_KEY"],
  ])(
    "without the key of %s: one line naming %s, exit 2, nothing written",
    async (file, variable) => {
      const work = await testdir();
      const io = captureIO({ cwd: work, env: { HOME: work } });
      const code = await runCli(
        [
          "run",
          "--config",
          join(repoRoot, "configs/mini-swe-agent", file),
          "--dataset",
          join(repoRoot, "examples/dataset"),
          "--bug",
          "leasekv-77",
          "--out",
          "results/x",
          "--cache-dir",
          "cache",
        ],
        io,
      );
      expect(code).toBe(2);
      const lines = io.err().trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`environment variable ${variable} is not set`);
      expect(io.out()).toBe("");
      expect(await exists(join(work, "results"))).toBe(false);
      expect(await exists(join(work, "cache"))).toBe(false);
    },
  );

  it("finds the seed's zookeeper-2845 in the bundled catalog without --dataset (then stops on the missing key)", async () => {
    const work = await testdir();
    const io = captureIO({ cwd: work, env: { HOME: work } });
    const code = await runCli(
      [
        "run",
        "--config",
        join(repoRoot, "configs/mini-swe-agent/gpt-5.4.yaml"),
        "--bug",
        "zookeeper-2845",
        "--runs",
        "1",
      ],
      io,
    );
    expect(code).toBe(2);
    expect(io.err().trim()).toContain("environment variable OPENAI_API_KEY is not set");
    expect(io.err()).not.toMatch(/no (bundled dataset|incident)/);
    expect(await exists(join(work, "results"))).toBe(false);
  });

  it("runs the mini agent from a config against a loopback model to a scored attempt", async () => {
    const replies = [
      '```bash\ncat > /output/diagnosis.json <<\'EOF\'\n{"format": "distdebug.diagnosis/1", "incidentId": "leasekv-77", "blocks": [{"path": "lease/lessor.go", "startLine": 147, "endLine": 148}]}\nEOF\n```',
      "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
    ];
    let index = 0;
    // A loopback OpenAI-compatible server answering from the script.
    const server = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        const content = replies[Math.min(index++, 1)];
        response.writeHead(200, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            id: "c",
            object: "chat.completion",
            created: 0,
            model: "fake",
            choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
            usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const work = await testdir();
      await writeFile(
        join(work, "mini.yaml"),
        `name: mini-local\nagent:\n  type: mini\n  wallTimeLimitSec: 60\nmodel:\n  provider: openai\n  name: fake\n  baseUrl: \${FAKE_BASE_URL}\n  apiKeyEnv: FAKE_KEY\nrun:\n  attempts: 1\n`,
      );
      const io = captureIO({
        cwd: work,
        env: { HOME: work, FAKE_KEY: "sk-x", FAKE_BASE_URL: `${url}/v1` },
      });
      const code = await runCli(
        [
          "run",
          "--config",
          "mini.yaml",
          "--dataset",
          join(repoRoot, "examples/dataset"),
          "--bug",
          "leasekv-77",
          "--out",
          "results",
          "--cache-dir",
          "cache",
        ],
        io,
      );
      expect(io.err()).not.toMatch(/error/i);
      expect(code).toBe(0);
      const dir = join(work, "results/leasekv-77/attempt-1");
      const attempt = parseAttempt(await readFile(join(dir, "attempt.json"), "utf8"));
      expect(attempt.status).toBe("succeeded");
      const scores = parseDiagnosisScores(await readFile(join(dir, "diagnosis_scores.json")));
      expect(scores.metrics.blockCoverage).toBe(0.5);
      expect(attempt.usage).toMatchObject({
        inputTokens: 200,
        outputTokens: 40,
        calls: 2,
        costUsd: null,
      });
      const trajectory = parseTrajectory(await readFile(join(dir, "trajectory.json")));
      expect(trajectory.exitStatus).toBe("submitted");
      expect(await readFile(join(work, "results/run.json"), "utf8")).not.toContain("sk-x");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
