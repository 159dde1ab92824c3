import { lstat, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  DistDebugError,
  errorMessage,
  formats,
  type ModelConfig,
  type TaskManifest,
  type Trajectory,
  type TrajectoryExitStatus,
  type TrajectoryStep,
} from "@distdebug/schema";
import type { Agent, AgentContext, AgentOutcome } from "../agent.js";
import { defaultOutputCap, worstCaseTokens } from "../gateway/request-policy.js";
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
    // The opaque task id: the model is never told which incident this is.
    incident_id: context.taskId,
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
  const model = context.config.model;
  if (!model)
    throw new DistDebugError({
      code: "INVALID_CONFIG",
      message: "agent.type mini needs a model section in the config",
    });
  const startedAt = new Date();
  const client = options.client?.(model) ?? defaultClient(model, options);
  const meter = new UsageMeter({
    prices: model.prices,
    provider: model.provider,
    budget: { costLimitUsd: context.config.agent.costLimitUsd },
  });
  const run = new MiniRun(context, model, client, meter, await taskVariables(context));
  run.start();
  await run.loop();
  return run.finish(startedAt);
}

function defaultClient(model: ModelConfig, options: MiniAgentOptions): ModelClient {
  return createModelClient({
    model,
    apiKey: options.apiKey,
    ...(options.retryInitialDelayMs === undefined
      ? {}
      : { retryInitialDelayMs: options.retryInitialDelayMs }),
  });
}

type ModelReply = Awaited<ReturnType<ModelClient["complete"]>>;
type MiniOutcome = Omit<AgentOutcome, "usage" | "trajectory">;

const INTERRUPTED: MiniOutcome = { status: "agent-error", message: "the run was interrupted" };

/** One run of the mini agent: the conversation, the record of steps, and how it ended. */
class MiniRun {
  readonly steps: TrajectoryStep[] = [];
  readonly messages: ModelMessage[] = [];
  exitStatus: TrajectoryExitStatus = "error";
  submission: string | undefined;
  outcome: MiniOutcome = { status: "agent-error", message: "the agent did not end" };
  modelSteps = 0;
  stopped: { kind: LimitKind; message: string } | undefined;

  constructor(
    private readonly context: AgentContext,
    private readonly model: ModelConfig,
    private readonly client: ModelClient,
    private readonly meter: UsageMeter,
    private readonly variables: Partial<Record<TemplateVariable, string | number>>,
  ) {}

  /** Adds a message to the conversation and to the record. */
  say(message: ModelMessage): void {
    this.messages.push(message);
    this.steps.push({
      type: "message",
      role: message.role,
      content: message.content,
      at: new Date().toISOString(),
    });
  }

  /** The system and instance messages. */
  start(): void {
    const { agent } = this.context.config;
    this.say({
      role: "system",
      content: renderTemplate(
        agent.systemTemplate ?? DEFAULT_SYSTEM_TEMPLATE,
        this.variables,
        "agent.systemTemplate",
      ),
    });
    this.say({
      role: "user",
      content: renderTemplate(
        agent.instanceTemplate ?? DEFAULT_INSTANCE_TEMPLATE,
        this.variables,
        "agent.instanceTemplate",
      ),
    });
  }

  /** Steps until the agent submits, fails, is interrupted or reaches a limit. */
  async loop(): Promise<void> {
    while (!this.context.signal.aborted) {
      this.stopped = this.stopReason();
      if (this.stopped) break;
      if (!(await this.step())) break;
    }
    if (this.context.signal.aborted && this.outcome.status === "succeeded")
      this.outcome = INTERRUPTED;
  }

  /** Ends the run at a limit. */
  limit(kind: LimitKind, message: string): { kind: LimitKind; message: string } {
    this.exitStatus = "limit-exceeded";
    this.outcome = { status: "limit-exceeded", message };
    return { kind, message };
  }

  stopReason(): { kind: LimitKind; message: string } | undefined {
    const { agent } = this.context.config;
    if (Date.now() >= this.context.deadline)
      return this.limit(
        "wall-time",
        `the wall-time limit of ${agent.wallTimeLimitSec} s was reached`,
      );
    if (agent.stepLimit > 0 && this.modelSteps >= agent.stepLimit)
      return this.limit("step", `the step limit of ${agent.stepLimit} steps was reached`);
    const over = this.meter.exceeded();
    if (over !== undefined) return this.limit("cost", over);
    return undefined;
  }

  /** One model call and the command it asks for; false when the run ends. */
  async step(): Promise<boolean> {
    this.modelSteps += 1;
    const reply = await this.callModel();
    if (!reply) return false;
    const actions = parseActions(reply.content);
    if (actions.length === 1) return this.runCommand(actions[0] ?? "");
    this.say({
      role: "user",
      content: renderTemplate(
        this.context.config.agent.formatErrorTemplate ?? DEFAULT_FORMAT_ERROR_TEMPLATE,
        { ...this.variables, actions: actions.length },
        "agent.formatErrorTemplate",
      ),
    });
    return true;
  }

  /** Calls the model within the time left; records the call. Undefined when it failed. */
  async callModel(): Promise<ModelReply | undefined> {
    const { context, meter } = this;
    const remaining = Math.max(1, context.deadline - Date.now());
    const started = Date.now();
    let reply: ModelReply;
    try {
      reply = await this.client.complete(this.messages, {
        signal: AbortSignal.any([context.signal, AbortSignal.timeout(remaining)]),
      });
    } catch (error) {
      this.modelCallFailed(error, Date.now() - started);
      return undefined;
    }
    const call = meter.record({
      ...reply.tokens,
      model: reply.model,
      durationMs: reply.durationMs,
    });
    this.steps.push(call);
    context.emit({
      type: "model-call-end",
      incidentId: context.incidentId,
      attempt: context.attempt,
      usage: { ...reply.tokens, calls: 1, costUsd: call.costUsd },
    });
    this.say({ role: "assistant", content: reply.content });
    return reply;
  }

  /**
   * A failed call ends the run: interrupted, out of time, or an agent error. A call the
   * provider may have generated (timed out, aborted, unreadable) is metered at its worst case:
   * the prompt estimate and the output cap (see `worstCaseTokens`, `defaultOutputCap`).
   */
  modelCallFailed(error: unknown, durationMs: number): void {
    const { context, model } = this;
    const message = errorMessage(error);
    const abandoned =
      DistDebugError.isInstance(error) &&
      (error.data as { abandoned?: unknown })?.abandoned === true;
    this.steps.push(
      abandoned
        ? this.meter.record({
            ...worstCaseTokens({ messages: this.messages }, defaultOutputCap(model)),
            model: model.name,
            durationMs,
            error: `${message} (metered at the call's worst case)`,
            worstCase: true,
          })
        : this.meter.recordFailure({ model: model.name, durationMs, error: message }),
    );
    if (context.signal.aborted) this.outcome = INTERRUPTED;
    else if (Date.now() >= context.deadline)
      this.stopped = this.limit(
        "wall-time",
        `the wall-time limit of ${context.config.agent.wallTimeLimitSec} s was reached during a model call`,
      );
    else {
      this.exitStatus = "error";
      this.outcome = { status: "agent-error", message };
    }
  }

  /** Runs one command in the sandbox and shows its output; false when the run ends. */
  async runCommand(command: string): Promise<boolean> {
    const { context } = this;
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
      this.outcome = INTERRUPTED;
      return false;
    }
    const output =
      result.stderr === ""
        ? result.stdout
        : `${result.stdout}${result.stdout.endsWith("\n") || result.stdout === "" ? "" : "\n"}${result.stderr}`;
    this.steps.push({
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
      this.exitStatus = "submitted";
      this.submission = lines.slice(1).join("\n").trim();
      this.outcome = { status: "succeeded" };
      return false;
    }
    this.say({
      role: "user",
      content: formatObservation(
        { exitCode: result.exitCode, output, timedOut: result.timedOut, timeoutMs },
        context.config.environment.observationChars,
      ),
    });
    return true;
  }

  /** Writes the trajectory to /output and returns the outcome. */
  async finish(startedAt: Date): Promise<AgentOutcome> {
    // The record replaces whatever the model left at /output/trajectory.json (a link or FIFO is
    // replaced, never followed); a directory cannot be replaced, and is the model's error.
    const trajectoryPath = join(this.context.outputDir, formats.trajectory.fileName);
    const blocked = (await lstat(trajectoryPath).catch(() => undefined))?.isDirectory() ?? false;
    if (blocked) {
      this.exitStatus = "error";
      this.outcome = {
        status: "agent-error",
        message: `/output/${formats.trajectory.fileName}: is a directory, not a file`,
      };
    }
    const trajectory = this.trajectory(startedAt, new Date());
    // The harness's record stands (see AgentOutcome.trajectory); whatever the model left there
    // is removed, not rewritten (/output may be too full for the record).
    if (!blocked) await rm(trajectoryPath, { force: true });
    return { ...this.outcome, usage: this.meter.usage, trajectory };
  }

  trajectory(startedAt: Date, endedAt: Date): Trajectory {
    return {
      format: "distdebug.trajectory/1",
      incidentId: this.context.incidentId,
      agent: { name: "mini", version: AGENTS_VERSION },
      model: { provider: this.model.provider, name: this.model.name },
      exitStatus: this.exitStatus,
      ...(this.submission ? { submission: this.submission } : {}),
      usage: this.meter.usage,
      steps: this.steps,
      startedAt: startedAt.toISOString(),
      endedAt: endedAt.toISOString(),
      durationMs: endedAt.getTime() - startedAt.getTime(),
      extra: {
        modelSteps: this.modelSteps,
        ...(this.stopped ? { limit: this.stopped.kind } : {}),
        ...(this.outcome.message ? { message: this.outcome.message } : {}),
      },
    };
  }
}
