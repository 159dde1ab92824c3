import { z } from "zod";
import { emptyUsage, type Usage } from "./common.js";
import { checkJsonText } from "./json-limits.js";
import { type Trajectory, type TrajectoryStep, trajectoryExitStatus } from "./trajectory.js";
import { usageFromWire } from "./wire-usage.js";

/** A message of a mini-swe-agent trajectory; unknown fields are kept. */
export const MiniSweAgentMessage = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
  tool_calls: z.array(z.unknown()).optional(),
});
/** A message of a mini-swe-agent trajectory. */
export type MiniSweAgentMessage = z.infer<typeof MiniSweAgentMessage>;

/** The object form: `{ info, messages, trajectory_format: "mini-swe-agent-1.1" }`. */
export const MiniSweAgentTrajectory = z.looseObject({
  trajectory_format: z.string().startsWith("mini-swe-agent"),
  info: z
    .looseObject({
      exit_status: z.string().nullable().optional(),
      submission: z.string().nullable().optional(),
      model_stats: z
        .looseObject({
          instance_cost: z.number().optional(),
          api_calls: z.number().optional(),
        })
        .optional(),
      mini_version: z.string().optional(),
    })
    .default({}),
  messages: z.array(MiniSweAgentMessage),
});
/** The object form of a mini-swe-agent trajectory. */
export type MiniSweAgentTrajectory = z.infer<typeof MiniSweAgentTrajectory>;

/** The older form: a bare list of messages. */
export const MiniSweAgentMessageList = z.array(MiniSweAgentMessage).min(1);

/** Does this value look like a mini-swe-agent trajectory (either form)? */
export function isMiniSweAgentTrajectory(value: unknown): boolean {
  if (Array.isArray(value)) {
    return (
      value.length > 0 &&
      value.every(
        (m) =>
          typeof m === "object" && m !== null && typeof (m as { role?: unknown }).role === "string",
      )
    );
  }
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { trajectory_format?: unknown }).trajectory_format === "string" &&
    (value as { trajectory_format: string }).trajectory_format.startsWith("mini-swe-agent")
  );
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
const asNumber = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** Message content as text: strings as they are, content-part lists joined. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === "string" ? part : ((asRecord(part)?.text as string | undefined) ?? ""),
      )
      .join("");
  }
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

/** The bash commands an assistant message asks for: `extra.actions`, tool calls, or ```bash blocks. */
function actionsOf(message: MiniSweAgentMessage): string[] {
  const actions = message.extra?.actions;
  if (Array.isArray(actions) && actions.length > 0) {
    return actions
      .map((action) =>
        typeof action === "string" ? action : (asRecord(action)?.command as string | undefined),
      )
      .filter((command): command is string => typeof command === "string");
  }
  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
    const commands: string[] = [];
    for (const call of message.tool_calls) {
      const fn = asRecord(asRecord(call)?.function);
      const args = fn?.arguments;
      let parsed: Record<string, unknown> | undefined;
      if (typeof args === "string") {
        try {
          // The arguments are the model's text: bounded like every JSON the agent wrote.
          checkJsonText(args, { source: "tool call arguments" });
          parsed = asRecord(JSON.parse(args));
        } catch {
          parsed = { command: args };
        }
      } else parsed = asRecord(args);
      const command = parsed?.command ?? parsed?.cmd;
      if (typeof command === "string") commands.push(command);
    }
    return commands;
  }
  const text = contentText(message.content);
  const blocks = [...text.matchAll(/```(?:bash|sh)\s*\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
  // mini-swe-agent runs exactly one block; with none or several it answers a format error.
  return blocks.length === 1 ? blocks : [];
}

/** Exit code and output of an observation message. */
/**
 * A tool message's content as mini-swe-agent 2.x writes it for tool calls, a JSON object
 * `{"returncode": 0, "output": "..."}`; undefined for any other text.
 */
function jsonObservation(text: string): { returncode?: number; output: string } | undefined {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    const value = asRecord(JSON.parse(text));
    if (typeof value?.output !== "string") return undefined;
    const returncode = asNumber(value.returncode);
    return { output: value.output, ...(returncode === undefined ? {} : { returncode }) };
  } catch {
    return undefined;
  }
}

function observationOf(message: MiniSweAgentMessage): { exitCode: number | null; output: string } {
  const extra = message.extra ?? {};
  const text = contentText(message.content);
  const json = jsonObservation(text);
  if (json) {
    const code = asNumber(extra.returncode) ?? json.returncode ?? null;
    return {
      exitCode: code,
      output: typeof extra.output === "string" ? extra.output : json.output,
    };
  }
  const code = asNumber(extra.returncode) ?? asNumber(extra.exit_code);
  const tagged = /<returncode>\s*(-?\d+)\s*<\/returncode>/.exec(text);
  const exitCode = code ?? (tagged ? Number(tagged[1]) : null);
  const rawOutput = typeof extra.output === "string" ? extra.output : undefined;
  const taggedOutput = /<output>\n?([\s\S]*?)\n?<\/output>/.exec(text);
  return { exitCode, output: rawOutput ?? (taggedOutput ? taggedOutput[1]! : text) };
}

/** Token use of an assistant message, from `extra.response.usage` or `extra.usage`. */
function usageOf(
  message: MiniSweAgentMessage,
): { input: number; output: number; cached: number; cost?: number; model?: string } | undefined {
  const extra = message.extra ?? {};
  const response = asRecord(extra.response);
  const usage = asRecord(response?.usage) ?? asRecord(extra.usage);
  const cost = asNumber(extra.cost);
  if (!usage && cost === undefined) return undefined;
  const tokens = usageFromWire("auto", { usage }) ?? {
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
  };
  const input = tokens.inputTokens;
  const output = tokens.outputTokens;
  const cached = tokens.cachedTokens;
  const model = typeof response?.model === "string" ? response.model : undefined;
  return {
    input,
    output,
    cached,
    ...(cost === undefined ? {} : { cost }),
    ...(model === undefined ? {} : { model }),
  };
}

function isObservation(message: MiniSweAgentMessage | undefined): boolean {
  if (!message) return false;
  if (message.role === "tool") return true;
  if (message.role !== "user") return false;
  const extra = message.extra ?? {};
  return "returncode" in extra || /<returncode>/.test(contentText(message.content));
}

/**
 * Converts a mini-swe-agent trajectory (the `mini-swe-agent-1.1` object or the older bare list
 * of messages) to the DistDebug trajectory format. Unknown fields are kept under `extra`.
 *
 * @example
 * ```ts
 * const trajectory = convertMiniSweAgentTrajectory(JSON.parse(text));
 * console.log(trajectory.exitStatus, trajectory.usage.costUsd);
 * ```
 */
export function convertMiniSweAgentTrajectory(
  value: MiniSweAgentTrajectory | MiniSweAgentMessage[],
): Trajectory {
  const messages = Array.isArray(value) ? value : value.messages;
  const info = Array.isArray(value) ? undefined : value.info;
  const steps: TrajectoryStep[] = [];
  const usage: Usage = emptyUsage();
  let callCost = 0;
  let anyCost = false;
  let exitStatus: string | undefined = info?.exit_status ?? undefined;
  let submission: string | undefined = info?.submission ?? undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "exit") {
      const extra = message.extra ?? {};
      if (typeof extra.exit_status === "string") exitStatus ??= extra.exit_status;
      if (typeof extra.submission === "string") submission ??= extra.submission;
      continue;
    }
    const role =
      message.role === "system" || message.role === "assistant" || message.role === "tool"
        ? message.role
        : "user";
    steps.push({ type: "message", role, content: contentText(message.content) });
    if (message.role !== "assistant") continue;
    const calls = usageOf(message);
    if (calls) {
      usage.inputTokens += calls.input;
      usage.outputTokens += calls.output;
      usage.cachedTokens += calls.cached;
      usage.calls += 1;
      if (calls.cost !== undefined) {
        callCost += calls.cost;
        anyCost = true;
      }
      steps.push({
        type: "model-call",
        ...(calls.model === undefined ? {} : { model: calls.model }),
        inputTokens: calls.input,
        outputTokens: calls.output,
        cachedTokens: calls.cached,
        costUsd: calls.cost ?? null,
      });
    }
    for (const command of actionsOf(message)) {
      const next = messages[i + 1];
      if (isObservation(next)) {
        i += 1;
        const observed = observationOf(next!);
        steps.push({
          type: "command",
          command,
          exitCode: observed.exitCode,
          output: observed.output,
        });
      } else {
        steps.push({ type: "command", command, exitCode: null, output: "" });
      }
    }
  }
  const last = messages.at(-1);
  if (last && exitStatus === undefined && typeof last.extra?.exit_status === "string")
    exitStatus = last.extra.exit_status;
  if (last && submission === undefined && typeof last.extra?.submission === "string")
    submission = last.extra.submission;
  const stats = info?.model_stats;
  const cost = asNumber(stats?.instance_cost) ?? (anyCost ? callCost : undefined);
  if (cost !== undefined) usage.costUsd = cost;
  const apiCalls = asNumber(stats?.api_calls);
  if (apiCalls !== undefined) usage.calls = apiCalls;
  const format = Array.isArray(value) ? "mini-swe-agent-legacy" : value.trajectory_format;
  const { exit_status: _status, submission: _submission, model_stats, ...restInfo } = info ?? {};
  const extra: Record<string, unknown> = {};
  const status = trajectoryExitStatus(exitStatus);
  // mini-swe-agent's own word, when the vocabulary changed it (`Submitted`, an exception name).
  if (exitStatus !== undefined && exitStatus !== status) extra.exit_status = exitStatus;
  if (info) extra.info = { ...restInfo, ...(model_stats ? { model_stats } : {}) };
  if (!Array.isArray(value)) {
    const { trajectory_format: _format, info: _info, messages: _messages, ...rest } = value;
    Object.assign(extra, rest);
  }
  return {
    format: "distdebug.trajectory/1",
    agent: {
      name: "mini-swe-agent",
      ...(typeof info?.mini_version === "string" ? { version: info.mini_version } : {}),
    },
    exitStatus: status,
    ...(submission === undefined ? {} : { submission }),
    usage,
    steps,
    convertedFrom: format,
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}
