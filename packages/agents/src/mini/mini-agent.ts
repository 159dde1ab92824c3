import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  DistDebugError,
  errorMessage,
  formats,
  type ModelConfig,
  serialize,
  type TaskManifest,
  type Trajectory,
  type TrajectoryStep,
  writeFileAtomic,
} from "@distdebug/schema";
import type { Agent, AgentContext, AgentOutcome } from "../agent.js";
import { createModelClient, type ModelClient, type ModelMessage } from "../model/model-client.js";
import { UsageMeter } from "../model/usage-meter.js";
import { AGENTS_VERSION } from "../version.js";
import {
  DEFAULT_FORMAT_ERROR_TEMPLATE,
  DEFAULT_INSTANCE_TEMPLATE,
  DEFAULT_SYSTEM_TEMPLATE,
  formatObservation,
  parseActions,
  renderTemplate,
  SUBMIT_SENTINEL,
  type TemplateVariable,
} from "./templates.js";

/** Options of {@link createMiniAgent}. */
export interface MiniAgentOptions {
  /** The model's API key (read by `agentFor` from `model.apiKeyEnv`). Used outside the sandbox only. */
  apiKey: string;
  /** A client to use instead of one built from the config's model (tests, custom protocols). */
  client?: (model: ModelConfig) => ModelClient;
  /** Delay before the first retry of a failed model call. Default 1000 ms. */
  retryInitialDelayMs?: number;
}

type LimitKind = "step" | "cost" | "wall-time";

async function taskVariables(
  context: AgentContext,
): Promise<Partial<Record<TemplateVariable, string | number>>> {
  const manifest = JSON.parse(
    await readFile(join(context.taskDir, "task.json"), "utf8"),
  ) as TaskManifest;
  const report = await readFile(join(context.taskDir, manifest.report), "utf8");
  const { agent } = context.config;
  return {
    incident_id: context.incidentId,
    title: manifest.title,
    system: manifest.system,
    languages: manifest.languages.join(", "),
    report: report.trim(),
    artifacts:
      manifest.artifacts.length === 0
        ? "  (none)"
        : manifest.artifacts
            .map(
              (artifact) =>
                `  - ${artifact.path} (${artifact.kind}${artifact.description ? `: ${artifact.description}` : ""})`,
            )
            .join("\n"),
    task_dir: "/task",
    workspace: "/workspace",
    output_dir: "/output",
    submit_sentinel: SUBMIT_SENTINEL,
    step_limit: agent.stepLimit,
    cost_limit: agent.costLimitUsd,
    wall_time_limit_sec: agent.wallTimeLimitSec,
    command_timeout_sec: Math.round(context.sandbox.policy.limits.timeoutMs / 1000),
    observation_chars: context.config.environment.observationChars,
  };
}

/**
 * The built-in `mini` agent, in the spirit of mini-swe-agent: the model loop runs in the
 * runner (the key never enters the sandbox), each step asks the model for exactly one
 * ```bash block and runs it as a fresh process in the sandbox with the command timeout;
 * observations are cut to `environment.observationChars`. A response without exactly one
 * block gets the format-error template and counts as a step. The attempt ends when a command
 * prints {@link SUBMIT_SENTINEL} first (after writing `/output/diagnosis.json`), or at the
 * step limit, the cost limit or the wall-time limit (`limit-exceeded`), or when the model
 * fails after its retries (`agent-error`). Its trajectory (every message, model call with
 * tokens and cost, command with output) is written to `/output/trajectory.json`.
 *
 * @example
 * ```ts
 * const agent = createMiniAgent({ apiKey: process.env.OPENAI_API_KEY! });
 * await runBenchmark({ config, dataset, outDir, agent });
 * ```
 */
export function createMiniAgent(options: MiniAgentOptions): Agent {
  return {
    name: "mini",
    run: (context) => runMini(context, options),
  };
}

async function runMini(context: AgentContext, options: MiniAgentOptions): Promise<AgentOutcome> {
  const { config } = context;
  const model = config.model;
  if (!model)
    throw new DistDebugError({
      code: "INVALID_CONFIG",
      message: "agent.type mini needs a model section in the config",
    });
  const startedAt = new Date();
  const client =
    options.client?.(model) ??
    createModelClient({
      model,
      apiKey: options.apiKey,
      ...(options.retryInitialDelayMs === undefined
        ? {}
        : { retryInitialDelayMs: options.retryInitialDelayMs }),
    });
  const meter = new UsageMeter({
    prices: model.prices,
    budget: { costLimitUsd: config.agent.costLimitUsd },
  });
  const variables = await taskVariables(context);
  const steps: TrajectoryStep[] = [];
  const messages: ModelMessage[] = [];
  const say = (message: ModelMessage) => {
    messages.push(message);
    steps.push({
      type: "message",
      role: message.role,
      content: message.content,
      at: new Date().toISOString(),
    });
  };
  say({
    role: "system",
    content: renderTemplate(
      config.agent.systemTemplate ?? DEFAULT_SYSTEM_TEMPLATE,
      variables,
      "agent.systemTemplate",
    ),
  });
  say({
    role: "user",
    content: renderTemplate(
      config.agent.instanceTemplate ?? DEFAULT_INSTANCE_TEMPLATE,
      variables,
      "agent.instanceTemplate",
    ),
  });

  let exitStatus = "error";
  let submission: string | undefined;
  let outcome: Omit<AgentOutcome, "usage" | "trajectory"> = {
    status: "agent-error",
    message: "the agent did not end",
  };
  let modelSteps = 0;
  const limit = (kind: LimitKind, message: string) => {
    exitStatus = "limit-exceeded";
    outcome = { status: "limit-exceeded", message };
    return { kind, message };
  };
  const stopReason = () => {
    if (Date.now() >= context.deadline)
      return limit(
        "wall-time",
        `the wall-time limit of ${config.agent.wallTimeLimitSec} s was reached`,
      );
    if (config.agent.stepLimit > 0 && modelSteps >= config.agent.stepLimit)
      return limit("step", `the step limit of ${config.agent.stepLimit} steps was reached`);
    const over = meter.exceeded();
    if (over !== undefined) return limit("cost", over);
    return undefined;
  };
  let stopped: { kind: LimitKind; message: string } | undefined;

  while (!context.signal.aborted) {
    stopped = stopReason();
    if (stopped) break;
    modelSteps += 1;
    const remaining = Math.max(1, context.deadline - Date.now());
    let reply: Awaited<ReturnType<ModelClient["complete"]>>;
    const started = Date.now();
    try {
      reply = await client.complete(messages, {
        signal: AbortSignal.any([context.signal, AbortSignal.timeout(remaining)]),
      });
    } catch (error) {
      const message = errorMessage(error);
      steps.push(
        meter.recordFailure({
          model: model.name,
          durationMs: Date.now() - started,
          error: message,
        }),
      );
      if (context.signal.aborted) {
        outcome = { status: "agent-error", message: "the run was interrupted" };
        break;
      }
      if (Date.now() >= context.deadline) {
        stopped = limit(
          "wall-time",
          `the wall-time limit of ${config.agent.wallTimeLimitSec} s was reached during a model call`,
        );
        break;
      }
      exitStatus = "error";
      outcome = { status: "agent-error", message };
      break;
    }
    const call = meter.record({
      ...reply.tokens,
      model: reply.model,
      durationMs: reply.durationMs,
    });
    steps.push(call);
    context.emit({
      type: "model-call-end",
      incidentId: context.incidentId,
      attempt: context.attempt,
      usage: { ...reply.tokens, calls: 1, costUsd: call.costUsd },
    });
    say({ role: "assistant", content: reply.content });

    const actions = parseActions(reply.content);
    if (actions.length !== 1) {
      say({
        role: "user",
        content: renderTemplate(
          config.agent.formatErrorTemplate ?? DEFAULT_FORMAT_ERROR_TEMPLATE,
          { ...variables, actions: actions.length },
          "agent.formatErrorTemplate",
        ),
      });
      continue;
    }
    const command = actions[0] ?? "";
    const timeoutMs = Math.max(
      1,
      Math.min(context.sandbox.policy.limits.timeoutMs, context.deadline - Date.now()),
    );
    const result = await context.sandbox
      .exec(command, { timeoutMs, signal: context.signal })
      .catch((error: unknown) => {
        if (DistDebugError.isInstance(error) && error.code === "ABORTED") return undefined;
        throw error;
      });
    if (!result) {
      outcome = { status: "agent-error", message: "the run was interrupted" };
      break;
    }
    const output =
      result.stderr === ""
        ? result.stdout
        : `${result.stdout}${result.stdout.endsWith("\n") || result.stdout === "" ? "" : "\n"}${result.stderr}`;
    steps.push({
      type: "command",
      command,
      exitCode: result.exitCode,
      output,
      durationMs: result.durationMs,
      timedOut: result.timedOut,
      truncated: result.truncated,
      at: new Date().toISOString(),
    });
    context.emit({
      type: "agent-command-end",
      incidentId: context.incidentId,
      attempt: context.attempt,
      command,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
    });
    const lines = result.stdout.trimStart().split("\n");
    if (lines[0]?.trim() === SUBMIT_SENTINEL && !result.timedOut) {
      exitStatus = "submitted";
      submission = lines.slice(1).join("\n").trim();
      outcome = { status: "succeeded" };
      break;
    }
    say({
      role: "user",
      content: formatObservation(
        { exitCode: result.exitCode, output, timedOut: result.timedOut, timeoutMs },
        config.environment.observationChars,
      ),
    });
  }
  if (context.signal.aborted && outcome.status === "succeeded")
    outcome = { status: "agent-error", message: "the run was interrupted" };

  // The record replaces whatever the model left at /output/trajectory.json (a link or FIFO is
  // replaced, never followed); a directory cannot be replaced, and is the model's error.
  const trajectoryPath = join(context.outputDir, formats.trajectory.fileName);
  const blocked = (await lstat(trajectoryPath).catch(() => undefined))?.isDirectory() ?? false;
  if (blocked) {
    exitStatus = "error";
    outcome = {
      status: "agent-error",
      message: `/output/${formats.trajectory.fileName}: is a directory, not a file`,
    };
  }

  const endedAt = new Date();
  const trajectory: Trajectory = {
    format: "distdebug.trajectory/1",
    incidentId: context.incidentId,
    agent: { name: "mini", version: AGENTS_VERSION },
    model: { provider: model.provider, name: model.name },
    exitStatus,
    ...(submission ? { submission } : {}),
    usage: meter.usage,
    steps,
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: endedAt.getTime() - startedAt.getTime(),
    extra: {
      modelSteps,
      ...(stopped ? { limit: stopped.kind } : {}),
      ...(outcome.message ? { message: outcome.message } : {}),
    },
  };
  // The harness's record replaces anything the model may have written there.
  if (!blocked) await writeFileAtomic(trajectoryPath, serialize(trajectory));
  return { ...outcome, usage: meter.usage, trajectory };
}
