import { join } from "node:path";
import {
  DistDebugError,
  emptyUsage,
  formats,
  MAX_TRAJECTORY_BYTES,
  parseTrajectory,
  type RunConfig,
  readFileChecked,
  type Trajectory,
} from "@distdebug/schema";
import type { Agent, AgentContext, AgentOutcome, AgentSetup } from "../agent.js";
import {
  FORWARDER_PROGRAM_PATH,
  forwarderProgramFile,
  GATEWAY_PLACEHOLDER_KEY,
  SANDBOX_NODE_PATH,
} from "../gateway/forwarder.js";
import { type ModelGateway, startGateway } from "../gateway/gateway-server.js";
import { UsageMeter } from "../model/usage-meter.js";
import { mergeTrajectory } from "./merge-trajectory.js";

/** Options of {@link createCommandAgent}. */
export interface CommandAgentOptions {
  /** The model's real key (kept outside the sandbox; the gateway adds it). Needed when the config has a model. */
  apiKey?: string;
  /** Delay before the gateway's first retry of an upstream 429/5xx. Default 1000 ms. */
  retryInitialDelayMs?: number;
}

/** Characters of the program's stdout and stderr kept in the harness's trajectory. */
const PROGRAM_OUTPUT_CHARS = 20_000;

/**
 * The environment a `command` agent's program gets (besides the policy's own `PATH`, `HOME`,
 * `LANG`, `TERM`): the folders (`DISTDEBUG_TASK`, `DISTDEBUG_WORKSPACE`, `DISTDEBUG_OUTPUT`),
 * `DISTDEBUG_INCIDENT_ID` (the attempt's opaque task id, as in `task.json`: never the incident's
 * id), `DISTDEBUG_ATTEMPT`, the deadline (`DISTDEBUG_DEADLINE_MS`, epoch
 * milliseconds) and the config's limits (`DISTDEBUG_STEP_LIMIT`, `DISTDEBUG_COST_LIMIT_USD`,
 * `DISTDEBUG_TOKEN_LIMIT`, `DISTDEBUG_WALL_TIME_LIMIT_SEC`; 0 means no limit). With a model in
 * the config it also gets `OPENAI_BASE_URL` (`…/v1`) and `ANTHROPIC_BASE_URL` on the sandbox's
 * loopback (the forwarder to the gateway), `DISTDEBUG_MODEL_BASE_URL` (all three set by the
 * forwarder), `DISTDEBUG_MODEL_PROVIDER`, `DISTDEBUG_MODEL_NAME`, `DISTDEBUG_GATEWAY_SOCKET` (set
 * by the sandbox), and a placeholder `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` (the real key never
 * enters the sandbox). `NODE_OPTIONS` is `--disable-wasm-trap-handler` unless the policy's env
 * sets it, so Node's `fetch` works under the address-space limit.
 */
export function commandAgentEnv(
  context: Pick<AgentContext, "taskId" | "attempt" | "deadline" | "config">,
): Record<string, string> {
  const { config } = context;
  const env: Record<string, string> = {
    DISTDEBUG_TASK: "/task",
    DISTDEBUG_WORKSPACE: "/workspace",
    DISTDEBUG_OUTPUT: "/output",
    DISTDEBUG_INCIDENT_ID: context.taskId,
    DISTDEBUG_ATTEMPT: String(context.attempt),
    DISTDEBUG_DEADLINE_MS: String(context.deadline),
    DISTDEBUG_STEP_LIMIT: String(config.agent.stepLimit),
    DISTDEBUG_COST_LIMIT_USD: String(config.agent.costLimitUsd),
    DISTDEBUG_TOKEN_LIMIT: String(config.agent.tokenLimit),
    DISTDEBUG_WALL_TIME_LIMIT_SEC: String(config.agent.wallTimeLimitSec),
  };
  // V8 reserves ~10 GiB of address space per WebAssembly memory, which the sandbox's RLIMIT_AS
  // refuses; Node's fetch (undici's wasm HTTP parser) then fails. Without the trap handler it fits.
  if (config.environment.sandbox.env.NODE_OPTIONS === undefined)
    env.NODE_OPTIONS = "--disable-wasm-trap-handler";
  if (config.model) {
    env.DISTDEBUG_MODEL_PROVIDER = config.model.provider;
    env.DISTDEBUG_MODEL_NAME = config.model.name;
    env.OPENAI_API_KEY = GATEWAY_PLACEHOLDER_KEY;
    env.ANTHROPIC_API_KEY = GATEWAY_PLACEHOLDER_KEY;
  }
  return env;
}

function programOf(config: RunConfig): string[] {
  const command = config.agent.command;
  if (!command || command.length === 0)
    throw new DistDebugError({
      code: "INVALID_CONFIG",
      message:
        "agent.type command needs agent.command: the program and its arguments, for example [python3, /opt/agent/run.py]",
    });
  return command;
}

/**
 * The `command` agent: runs your program (`agent.command`, an argv) inside the sandbox with
 * the task read-only at `/task`, the repository at `/workspace` (working directory) and the
 * output folder `/output`, where it must write `diagnosis.json` and `trajectory.json`
 * (DistDebug or mini-swe-agent format). Bind the program itself with
 * `environment.sandbox.readOnlyBinds`. With a model in the config, a metering gateway runs
 * per attempt outside the sandbox: the program reaches it through `OPENAI_BASE_URL` /
 * `ANTHROPIC_BASE_URL` (see `commandAgentEnv`); the gateway adds the real key, enforces
 * `agent.costLimitUsd` and `agent.tokenLimit`, and its measured calls and usage replace the
 * program's own accounting in the trajectory. Ends `limit-exceeded` at the wall-time limit or
 * when the gateway refused a call over budget, `agent-error` when the program exits non-zero.
 *
 * @example
 * ```ts
 * const agent = createCommandAgent({ apiKey: process.env.OPENAI_API_KEY });
 * await runBenchmark({ config, dataset, outDir, agent });
 * ```
 */
export function createCommandAgent(options: CommandAgentOptions = {}): Agent {
  const sessions = new WeakMap<AgentSetup, { gateway: ModelGateway; meter: UsageMeter }>();
  return {
    name: "command",
    binds: (config) =>
      config.model
        ? [
            { source: forwarderProgramFile, target: FORWARDER_PROGRAM_PATH },
            { source: process.execPath, target: SANDBOX_NODE_PATH },
          ]
        : [],
    network: (config) => (config.model ? "gateway" : undefined),
    async setup(context) {
      const model = context.config.model;
      if (!model) return { dispose: async () => {} };
      if (options.apiKey === undefined)
        throw new DistDebugError({
          code: "MISSING_ENV",
          message: "the command agent has a model but no API key (create it with agentFor)",
        });
      const meter = new UsageMeter({
        prices: model.prices,
        provider: model.provider,
        budget: {
          costLimitUsd: context.config.agent.costLimitUsd,
          tokenLimit: context.config.agent.tokenLimit,
          callLimit: context.config.agent.stepLimit,
        },
      });
      const gateway = await startGateway({
        model,
        apiKey: options.apiKey,
        meter,
        ...(context.gatewayDir === undefined ? {} : { dir: context.gatewayDir }),
        // As root, the sandbox runs commands (or bwrap itself) as the policy's user: only it may connect.
        ...(process.getuid?.() === 0 ? { owner: context.config.environment.sandbox.user } : {}),
        ...(options.retryInitialDelayMs === undefined
          ? {}
          : { retryInitialDelayMs: options.retryInitialDelayMs }),
        onCall: (call) =>
          context.emit({
            type: "model-call-end",
            incidentId: context.incidentId,
            attempt: context.attempt,
            usage: {
              inputTokens: call.inputTokens,
              outputTokens: call.outputTokens,
              cachedTokens: call.cachedTokens,
              calls: 1,
              costUsd: call.costUsd,
            },
          }),
      });
      const setup: AgentSetup = { gateway: gateway.socketPath, dispose: () => gateway.close() };
      sessions.set(setup, { gateway, meter });
      return setup;
    },
    run: (context) => runCommand(context, context.setup ? sessions.get(context.setup) : undefined),
  };
}

async function runCommand(
  context: AgentContext,
  session: { gateway: ModelGateway; meter: UsageMeter } | undefined,
): Promise<AgentOutcome> {
  const { config } = context;
  const program = programOf(config);
  if (config.model && !session)
    throw new DistDebugError({
      code: "SANDBOX_ERROR",
      message: "the command agent's gateway was not set up for this attempt",
    });
  const startedAt = new Date();
  const argv = session ? [SANDBOX_NODE_PATH, FORWARDER_PROGRAM_PATH, ...program] : program;
  const timeoutMs = Math.max(1000, context.deadline - Date.now());
  const result = await context.sandbox.exec(argv, {
    timeoutMs,
    signal: context.signal,
    env: commandAgentEnv(context),
  });
  const endedAt = new Date();
  context.emit({
    type: "agent-command-end",
    incidentId: context.incidentId,
    attempt: context.attempt,
    command: program.join(" "),
    exitCode: result.exitCode,
    durationMs: result.durationMs,
  });
  const usage = session?.meter.usage ?? emptyUsage();

  let outcome: Pick<AgentOutcome, "status" | "message">;
  if (result.timedOut)
    outcome = {
      status: "limit-exceeded",
      message: `the program hit the wall-time limit of ${config.agent.wallTimeLimitSec} s`,
    };
  else if (session?.gateway.limitHit)
    outcome = { status: "limit-exceeded", message: session.gateway.limitHit };
  else if (result.exitCode !== 0) {
    const tail = result.stderr.trim().split("\n").slice(-3).join(" | ");
    outcome = {
      status: "agent-error",
      message: `the program exited with ${result.exitCode ?? result.signal}${tail ? `: ${tail}` : ""}`,
    };
  } else outcome = { status: "succeeded" };

  const output = `${result.stdout}${result.stderr}`;
  const record: Trajectory = {
    format: "distdebug.trajectory/1",
    incidentId: context.incidentId,
    agent: { name: "command" },
    ...(config.model
      ? { model: { provider: config.model.provider, name: config.model.name } }
      : {}),
    exitStatus:
      outcome.status === "succeeded"
        ? "submitted"
        : outcome.status === "limit-exceeded"
          ? "limit-exceeded"
          : "error",
    usage,
    steps: [
      {
        type: "command",
        command: program.join(" "),
        exitCode: result.exitCode,
        output: output.length > PROGRAM_OUTPUT_CHARS ? output.slice(-PROGRAM_OUTPUT_CHARS) : output,
        durationMs: result.durationMs,
        timedOut: result.timedOut,
        truncated: result.truncated || output.length > PROGRAM_OUTPUT_CHARS,
        at: endedAt.toISOString(),
      },
      ...(session?.meter.calls ?? []),
    ],
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: endedAt.getTime() - startedAt.getTime(),
  };

  // The program's own trajectory, when valid, is kept and merged with the gateway's measurements.
  // It is read as a regular file only (never a link, FIFO or directory); anything else is the
  // agent's error, and the harness's record stands.
  const path = join(context.outputDir, formats.trajectory.fileName);
  let own: Trajectory | undefined;
  try {
    const bytes = await readFileChecked(path, {
      maxBytes: MAX_TRAJECTORY_BYTES,
      followLinks: false,
      label: `/output/${formats.trajectory.fileName}`,
    });
    try {
      own = parseTrajectory(bytes, { source: "trajectory.json" });
    } catch {
      own = undefined;
    }
  } catch (error) {
    if (!DistDebugError.isInstance(error) || error.code !== "FILE_NOT_FOUND")
      outcome = {
        status: "agent-error",
        message: error instanceof Error ? error.message : String(error),
      };
  }
  // Nothing is written back to /output: it is the agent's, and may be too full for a copy.
  if (own && session)
    return { ...outcome, usage, trajectory: mergeTrajectory(own, session.meter.calls, usage) };
  return { ...outcome, usage, trajectory: own ?? record };
}
