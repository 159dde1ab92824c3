import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  DiagnosisScores,
  parseAttempt,
  parseDiagnosis,
  parseDiagnosisScores,
  parseTrajectory,
} from "@distdebug/schema";
import {
  anthropicBody,
  type FakeModelServer,
  type FakeRequest,
  LEASEKV_SEARCH_COMMANDS,
  LEASEKV_WRONG_DIAGNOSIS,
  openAiBody,
  startFakeModelServer,
  testdir,
} from "@distdebug/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../cli.js";
import { captureIO } from "../testing/capture-io.js";
import { repoRoot } from "../testing/spawn-cli.js";

const KEY = "sk-external-agent-secret-31337";
const dataset = join(repoRoot, "examples/dataset");
let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Every file under `dir`, with its text. */
async function filesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  const found: { path: string; text: string }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      found.push({ path, text: await readFile(path, "utf8") });
    }
  return found;
}

/** `--set` of the sandbox's read-only binds (host paths, so given on the command line). */
function bindsOverride(binds: { source: string; target?: string }[]): string {
  const items = binds.map((bind) =>
    bind.target ? `{source: ${bind.source}, target: ${bind.target}}` : `{source: ${bind.source}}`,
  );
  return `environment.sandbox.readOnlyBinds=[${items.join(", ")}]`;
}

/** Runs `distdebug run` on leasekv-77 with the configs and overrides; returns the attempt folder. */
async function runLeasekv(configs: string[], overrides: string[], env: Record<string, string>) {
  const work = await testdir();
  const io = captureIO({ cwd: work, env: { HOME: work, ...env } });
  const args = ["run", ...configs.flatMap((config) => ["--config", join(repoRoot, config)])];
  args.push(...overrides.flatMap((override) => ["--set", override]));
  args.push(
    "--dataset",
    dataset,
    "--bug",
    "leasekv-77",
    "--out",
    "results",
    "--cache-dir",
    "cache",
  );
  const code = await runCli(args, io);
  const results = join(work, "results");
  return { code, io, results, attemptDir: join(results, "leasekv-77", "attempt-1") };
}

describe("examples/python-agent as a command agent", () => {
  it("runs offline through distdebug run to a valid, scored attempt (its folder bound by the config's relative source, run from another folder)", async (context) => {
    if (!existsSync("/usr/bin/python3")) context.skip("no /usr/bin/python3 on this machine");
    const { code, io, attemptDir } = await runLeasekv(
      ["configs/command/python-agent.yaml"],
      [],
      {},
    );
    expect(code, io.err()).toBe(0);
    const attempt = parseAttempt(await readFile(join(attemptDir, "attempt.json"), "utf8"));
    expect(attempt.status).toBe("succeeded");
    expect(attempt.sandbox.policy.network).toBe("none");
    const diagnosis = parseDiagnosis(await readFile(join(attemptDir, "diagnosis.json")));
    expect(diagnosis.incidentId).toBe("leasekv-77");
    expect(diagnosis.blocks.length).toBeGreaterThan(0);
    const trajectory = parseTrajectory(await readFile(join(attemptDir, "trajectory.json")));
    expect(trajectory.agent.name).toBe("python-agent");
    expect(trajectory.steps.some((step) => step.type === "command")).toBe(true);
  });

  it.for([
    { provider: "openai", path: "/v1/chat/completions" },
    { provider: "anthropic", path: "/v1/messages" },
  ])(
    "asks the $provider model through the gateway with a placeholder key; the gateway's count is recorded",
    async ({ provider, path }, context) => {
      if (!existsSync("/usr/bin/python3")) context.skip("no /usr/bin/python3 on this machine");
      server = await startFakeModelServer([
        {
          body:
            provider === "openai"
              ? openAiBody("[0, 1]", { input: 700, output: 9, cached: 100 })
              : anthropicBody("[0, 1]", { input: 600, output: 9, cacheRead: 100 }),
        },
      ]);
      const { code, io, attemptDir, results } = await runLeasekv(
        ["configs/command/python-agent.yaml", "configs/command/python-agent-openai.yaml"],
        [
          "model.name=scripted-model",
          `model.provider=${provider}`,
          `model.baseUrl=${provider === "openai" ? `${server.url}/v1` : server.url}`,
        ],
        { OPENAI_API_KEY: KEY },
      );
      expect(code, io.err()).toBe(0);
      expect(server.requests).toHaveLength(1);
      const request = server.requests[0] as FakeRequest;
      expect(request.path).toBe(path);
      expect(request.headers.authorization ?? request.headers["x-api-key"]).toMatch(KEY);
      expect((request.body as { model: string }).model).toBe("scripted-model");
      const trajectory = parseTrajectory(await readFile(join(attemptDir, "trajectory.json")));
      expect(trajectory.usage).toMatchObject({ inputTokens: 700, outputTokens: 9, calls: 1 });
      const calls = trajectory.steps.filter((step) => step.type === "model-call");
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ inputTokens: 700, cachedTokens: 100 });
      expect(trajectory.extra?.meteredBy).toBe("distdebug-gateway");
      expect(trajectory.extra?.agentModelCalls).toHaveLength(1);
      const diagnosis = parseDiagnosis(await readFile(join(attemptDir, "diagnosis.json")));
      expect(diagnosis.blocks.length).toBeGreaterThan(0);
      expect(diagnosis.blocks.length).toBeLessThanOrEqual(2);
      for (const file of await filesUnder(results)) expect(file.text).not.toContain(KEY);
    },
  );
});

const venvPython = join(repoRoot, ".venv/bin/python");

/** Why the mini-swe-agent test cannot run here, or undefined when it can. */
function miniSweAgentMissing(): string | undefined {
  if (!existsSync(venvPython))
    return "no .venv/bin/python: run `bash scripts/setup-python.sh` (needs python3 with venv)";
  try {
    const version = execFileSync(
      venvPython,
      ["-c", "import importlib.metadata as m; print(m.version('mini-swe-agent'))"],
      { encoding: "utf8" },
    ).trim();
    if (version !== "2.4.6") return `.venv holds mini-swe-agent ${version}, not 2.4.6`;
  } catch (error) {
    return `.venv has no mini-swe-agent: ${String(error).split("\n")[0]}`;
  }
  return undefined;
}

/** An OpenAI Chat Completions reply that calls mini-swe-agent's `bash` tool. */
function bashToolCall(index: number, command: string, usage: { input: number; output: number }) {
  const body = openAiBody(`step ${index}`, { ...usage, cached: 0 });
  const choice = body.choices[0] as { finish_reason: string; message: Record<string, unknown> };
  choice.finish_reason = "tool_calls";
  choice.message.tool_calls = [
    {
      id: `call_${index}`,
      type: "function",
      function: { name: "bash", arguments: JSON.stringify({ command }) },
    },
  ];
  return body;
}

const DIAGNOSIS = JSON.stringify({
  format: "distdebug.diagnosis/1",
  incidentId: "leasekv-77",
  blocks: [
    { path: "lease/lessor.go", startLine: 147, endLine: 148 },
    { path: "mvcc/store.go", startLine: 48, endLine: 50 },
  ],
});

/** The scripted session: look for secrets, read code, write the diagnosis, submit. */
const MINI_SCRIPT = [
  {
    command: "env; tr '\\0' '\\n' < /proc/self/environ; cat /proc/[0-9]*/environ | tr '\\0' '\\n'",
    input: 1200,
    output: 30,
  },
  { command: "nl -ba lease/lessor.go | sed -n '140,150p'", input: 1500, output: 25 },
  { command: `cat > /output/diagnosis.json <<'EOF'\n${DIAGNOSIS}\nEOF`, input: 1900, output: 80 },
  { command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", input: 2000, output: 12 },
];

/** Runs the real mini-swe-agent on leasekv-77 against a scripted model (one tool call a turn). */
async function runMiniSweAgent(script: { command: string; input: number; output: number }[]) {
  const model = await startFakeModelServer((_request, index) => {
    const step = script[Math.min(index, script.length - 1)]!;
    return { body: bashToolCall(index, step.command, step) };
  });
  server = model;
  const pythonHome = dirname(dirname(realpathSync(venvPython)));
  const run = await runLeasekv(
    ["configs/command/mini-swe-agent-2.4.6.yaml"],
    [
      bindsOverride([
        { source: join(repoRoot, ".venv"), target: "/opt/venv" },
        // A Python under /usr is in the sandbox already (a bind there is refused).
        ...(pythonHome.startsWith("/usr") ? [] : [{ source: pythonHome }]),
        { source: join(repoRoot, "examples/mini-swe-agent"), target: "/opt/mini-config" },
      ]),
      "model.name=scripted-model",
      "agent.wallTimeLimitSec=240",
    ],
    { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${model.url}/v1` },
  );
  return { ...run, requests: model.requests };
}

describe("the real mini-swe-agent 2.4.6 as a command agent", () => {
  // mini-swe-agent imports litellm (several seconds of Python start-up per process on a loaded
  // 2-core machine) and runs four model turns: a generous timeout.
  it("runs in the sandbox through the gateway: converted trajectory, scored diagnosis, metered tokens, no key inside", {
    timeout: 300_000,
  }, async (context) => {
    const missing = miniSweAgentMissing();
    if (missing) context.skip(missing);
    const { code, io, attemptDir, results, requests } = await runMiniSweAgent(MINI_SCRIPT);
    expect(code, io.err()).toBe(0);
    const attempt = parseAttempt(await readFile(join(attemptDir, "attempt.json"), "utf8"));
    expect(attempt.error).toBeUndefined();
    expect(attempt.status).toBe("succeeded");
    expect(attempt.sandbox.policy.network).toBe("gateway");
    const scores = parseDiagnosisScores(await readFile(join(attemptDir, "diagnosis_scores.json")));
    expect(scores.metrics.blockCoverage).toBe(1);

    // Every call reached the scripted server through the gateway, which added the real key.
    expect(requests).toHaveLength(MINI_SCRIPT.length);
    for (const request of requests) {
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect((request.body as { model: string }).model).toBe("scripted-model");
    }

    // The mini-swe-agent trajectory is converted; the gateway's count replaces mini's.
    const trajectory = parseTrajectory(await readFile(join(attemptDir, "trajectory.json")));
    expect(trajectory.convertedFrom).toBe("mini-swe-agent-1.1");
    expect(trajectory.extra?.meteredBy).toBe("distdebug-gateway");
    const sum = (field: "input" | "output") =>
      MINI_SCRIPT.reduce((total, step) => total + step[field], 0);
    expect(trajectory.usage).toMatchObject({
      inputTokens: sum("input"),
      outputTokens: sum("output"),
      calls: MINI_SCRIPT.length,
    });
    expect(attempt.usage).toEqual(trajectory.usage);
    const commands = trajectory.steps.filter((step) => step.type === "command");
    expect(commands.map((step) => step.command)).toEqual(MINI_SCRIPT.map((step) => step.command));
    const envOutput = commands[0]?.type === "command" ? commands[0].output : "";
    // The commands ran: the agent's environment shows the gateway's placeholder, not the key.
    expect(envOutput).toContain("OPENAI_API_KEY=sk-distdebug-gateway-placeholder");
    expect(envOutput).toContain("OPENAI_BASE_URL=http://127.0.0.1:");
    for (const step of commands)
      if (step.type === "command") expect(step.output).not.toContain(KEY);
    for (const request of requests) expect(JSON.stringify(request.body)).not.toContain(KEY);
    for (const file of await filesUnder(results)) expect(file.text, file.path).not.toContain(KEY);

    const diagnosis = parseDiagnosis(await readFile(join(attemptDir, "diagnosis.json")));
    expect(diagnosis.blocks).toHaveLength(2);
  });

  // Eight model turns of the real mini-swe-agent (litellm's start-up per process): generous.
  it("its converted trajectory gives the search path as scripted: the causal file at turn 4, the block at turn 6, a wrong answer", {
    timeout: 300_000,
  }, async (context) => {
    const missing = miniSweAgentMissing();
    if (missing) context.skip(missing);
    const script = [
      ...LEASEKV_SEARCH_COMMANDS,
      LEASEKV_WRONG_DIAGNOSIS,
      "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
    ].map((command, i) => ({ command, input: 1000 * (i + 1), output: 10 }));
    const { code, io, attemptDir } = await runMiniSweAgent(script);
    expect(code, io.err()).toBe(0);
    const scores = DiagnosisScores.parse(
      JSON.parse(await readFile(join(attemptDir, "diagnosis_scores.json"), "utf8")),
    );
    expect(scores.metrics.blockCoverage).toBe(0);
    expect(scores.search).toMatchObject({
      observed: true,
      turns: 8,
      causalBlocksShown: [0],
      firstCausalFileStep: 4,
      firstCausalBlockStep: 6,
      // The gateway's metered calls (no times in mini's record): the k-th call is turn k's.
      tokensToFirstCausalFile: 10_040,
      tokensToFirstCausalBlock: 21_060,
      blocks: [
        { outcome: "shown-not-named", fileStep: 4, blockStep: 6 },
        { outcome: "never-shown", fileStep: null, blockStep: null },
      ],
    });
  });
});

describe("the real mini-swe-agent 2.4.6 with the mock model (configs/mock/mini-swe-agent.yaml)", () => {
  // Python start-up of mini-swe-agent and litellm per turn on a loaded 2-core machine: generous.
  it("runs without a key or a server: the gateway answers its bash tool calls from the built-in script", {
    timeout: 300_000,
  }, async (context) => {
    const missing = miniSweAgentMissing();
    if (missing) context.skip(missing);
    const pythonHome = dirname(dirname(realpathSync(venvPython)));
    const { code, io, attemptDir } = await runLeasekv(
      ["configs/mock/mini-swe-agent.yaml"],
      [
        bindsOverride([
          { source: join(repoRoot, ".venv"), target: "/opt/venv" },
          ...(pythonHome.startsWith("/usr") ? [] : [{ source: pythonHome }]),
          { source: join(repoRoot, "examples/mini-swe-agent"), target: "/opt/mini-config" },
        ]),
      ],
      {},
    );
    expect(code, io.err()).toBe(0);
    const attempt = parseAttempt(await readFile(join(attemptDir, "attempt.json"), "utf8"));
    expect(attempt.status).toBe("succeeded");
    const scores = parseDiagnosisScores(await readFile(join(attemptDir, "diagnosis_scores.json")));
    expect(scores.metrics.blockCoverage).toBeTypeOf("number");
    const trajectory = parseTrajectory(await readFile(join(attemptDir, "trajectory.json")));
    const commands = trajectory.steps.flatMap((step) =>
      step.type === "command" ? [step.command] : [],
    );
    expect(commands[0]).toBe("ls");
    expect(commands[1]).toMatch(/^grep -rnI -E /);
    expect(commands[2]).toMatch(/^cat -n '[^']+\.go' \| sed -n /);
    expect(commands.at(-1)).toBe("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT");
    const diagnosis = parseDiagnosis(await readFile(join(attemptDir, "diagnosis.json")));
    expect(diagnosis.incidentId).toBe("leasekv-77");
    expect(diagnosis.blocks[0]?.path).toMatch(/\.go$/);
  });
});
