import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Agent, AgentOutcome } from "@distdebug/agents";
import { type DatasetIncident, opaqueTaskId, writeAgentTaskFolder } from "@distdebug/dataset";
import { ATTEMPT_FILES, attemptPath, isFinished, stageAttemptFolder } from "@distdebug/results";
import {
  type AttemptLimitHit,
  type AttemptSandbox,
  createAttemptSandbox,
  type OwnedFolder,
} from "@distdebug/sandbox";
import {
  type Attempt,
  type AttemptError,
  type AttemptStatus,
  checkJsonText,
  type Diagnosis,
  DistDebugError,
  emptyUsage,
  errorHeadline,
  errorMessage,
  type LimitHit,
  MAX_DIAGNOSIS_BYTES,
  MAX_TRAJECTORY_BYTES,
  parseAttempt,
  parseDiagnosis,
  parseTrajectory,
  type RunConfig,
  readFileChecked,
  type SandboxPolicy,
  SandboxPolicy as SandboxPolicySchema,
  type ScoreMetrics,
  serialize,
  sha256Hex,
  type Trajectory,
  type TrajectoryExitStatus,
  type Usage,
} from "@distdebug/schema";
import { type IncidentScorer, scoreAttemptFolder } from "./attempt-scoring.js";
import type { AttemptPhase, RunEventListener } from "./events.js";
import type { PreparedIncident } from "./prepared-incident.js";
import { workDirPrefix } from "./work-dirs.js";

/** Options of {@link runAttempt}. */
export interface RunAttemptOptions {
  incident: DatasetIncident;
  /** The incident's workspace source, gold and scorer, prepared once per incident and shared. */
  prepared: Promise<PreparedIncident>;
  /** 1-based attempt number. */
  attempt: number;
  /** The results folder (`results/<config>`). */
  outDir: string;
  /** The config as written (`${VAR}` unresolved); recorded in attempt.json's policy. */
  config: RunConfig;
  /** The config with `${VAR}` resolved, in memory only, for the agent. */
  resolvedConfig: RunConfig;
  agent: Agent;
  /** Hash of everything the attempt depends on (see `attemptInputHash`). */
  inputHash: string;
  /** Where per-attempt working folders go. */
  tempDir: string;
  /** Values redacted from every file of the attempt (the model's API key). */
  secrets?: readonly string[];
  /**
   * The host folders the run checked the policy's binds against (`checkSandboxEnvelope`),
   * recorded in attempt.json; without them `package` and `verify` refuse the attempt.
   */
  protectedPaths?: readonly string[];
  signal?: AbortSignal;
  onEvent?: RunEventListener;
}

function errorOf(error: unknown): AttemptError {
  if (DistDebugError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: "INTERNAL", message: errorMessage(error) };
}

/** Why an agent-written file was refused: one line, becomes the attempt's `agent-error`. */
class UnsafeAgentFile {
  constructor(readonly error: AttemptError) {}
}

/**
 * Reads a file the agent left in /output as a regular file only (never a link, FIFO, device
 * or directory; size checked first). Absent: `undefined`; anything else: {@link UnsafeAgentFile}.
 */
async function readAgentFile(
  outputDir: string,
  name: string,
  maxBytes: number,
): Promise<Buffer | UnsafeAgentFile | undefined> {
  try {
    return await readFileChecked(join(outputDir, name), {
      maxBytes,
      followLinks: false,
      label: `/output/${name}`,
    });
  } catch (error) {
    if (DistDebugError.isInstance(error) && error.code === "FILE_NOT_FOUND") return undefined;
    return new UnsafeAgentFile(errorOf(error));
  }
}

/** What the attempt's steps decide together: its status and what it produced. */
interface AttemptState {
  status: AttemptStatus;
  error?: AttemptError | undefined;
  limitHit?: LimitHit | undefined;
  usage: Usage;
  diagnosis?: Diagnosis | undefined;
  outputs: Record<string, string>;
}

/** The attempt's context shared by its steps. */
interface AttemptRun {
  options: RunAttemptOptions;
  incidentId: string;
  /** The opaque id the agent is shown instead of the incident id (see `opaqueTaskId`). */
  taskId: string;
  attempt: number;
  signal: AbortSignal;
  emit: RunEventListener;
  state: AttemptState;
  timings: Record<string, number>;
  resources: AttemptSandbox;
  /** What the workspace copy says about its owner (`AttemptSandbox.open`'s `ownedWorkspace`). */
  ownedWorkspace?: OwnedFolder | undefined;
  folder: Awaited<ReturnType<typeof stageAttemptFolder>>;
  phase(name: AttemptPhase): void;
  endPhase(name: AttemptPhase): void;
  writeOutput(name: string, data: string | Uint8Array): Promise<void>;
}

/** Sets the status once: the first reason that is not `succeeded` wins. */
function fail(state: AttemptState, status: AttemptStatus, error: AttemptState["error"]): void {
  if (state.status !== "succeeded") return;
  state.status = status;
  state.error = error;
}

/** The attempt's policy: the config's, with the agent's binds and network. */
export function attemptPolicy(options: Pick<RunAttemptOptions, "config" | "agent">): SandboxPolicy {
  return SandboxPolicySchema.parse({
    ...options.config.environment.sandbox,
    readOnlyBinds: [
      ...options.config.environment.sandbox.readOnlyBinds,
      ...(options.agent.binds?.(options.config) ?? []),
    ],
    ...(options.agent.network?.(options.config)
      ? { network: options.agent.network(options.config) }
      : {}),
  });
}

/** The resolved config the agent sees, with the attempt's own sandbox user (the gateway socket's owner). */
function agentConfig(run: AttemptRun): RunConfig {
  const config = run.options.resolvedConfig;
  return {
    ...config,
    environment: {
      ...config.environment,
      sandbox: { ...config.environment.sandbox, user: run.resources.policy.user },
    },
  };
}

/**
 * Copies the workspace (created as the sandbox's user, so the sandbox need not hand it over)
 * and the task in, then checks the workspace for leaks.
 */
async function prepareWork(run: AttemptRun, prepared: PreparedIncident): Promise<void> {
  const { incidentId, attempt, emit, resources } = run;
  run.phase("workspace");
  run.ownedWorkspace = await prepared.materialize(resources.workspaceDir, {
    signal: run.signal,
    onEvent: (event) => emit({ type: "attempt-workspace", incidentId, attempt, event }),
    owner: resources.workspaceOwner,
  });
  await writeAgentTaskFolder(prepared.task, resources.taskDir, { taskId: run.taskId });
  run.endPhase("workspace");
  run.phase("leakage");
  const findings = await prepared.checkLeakage(resources.workspaceDir);
  run.endPhase("leakage");
  if (findings.length > 0)
    throw new DistDebugError({
      code: "WORKSPACE_LEAK",
      message: `the workspace of ${incidentId} leaks the fix: ${findings.slice(0, 3).join("; ")}`,
      data: { findings },
    });
}

/** Starts the agent's per-attempt resources and the sandbox, runs the agent, tears both down. */
async function runAgent(run: AttemptRun): Promise<AgentOutcome> {
  const { incidentId, attempt, emit, signal, resources } = run;
  const config = agentConfig(run);
  run.phase("sandbox");
  // Per-attempt agent resources (the model gateway) come before the sandbox that binds them.
  const setup = await run.options.agent.setup?.({
    incidentId,
    attempt,
    config,
    signal,
    emit,
    gatewayDir: resources.gatewayDir,
  });
  const sandbox = await resources
    .open({
      ...(setup?.gateway ? { gateway: setup.gateway } : {}),
      ...(run.ownedWorkspace ? { ownedWorkspace: run.ownedWorkspace } : {}),
      onEvent: (event) => emit({ type: "attempt-sandbox", incidentId, attempt, event }),
    })
    .catch(async (failed: unknown) => {
      await setup?.dispose();
      throw failed;
    });
  run.endPhase("sandbox");
  run.phase("agent");
  try {
    return await run.options.agent.run({
      incidentId,
      taskId: run.taskId,
      attempt,
      config,
      sandbox,
      taskDir: resources.taskDir,
      outputDir: resources.outputDir,
      workspaceDir: resources.workspaceDir,
      deadline: Date.now() + config.agent.wallTimeLimitSec * 1000,
      signal,
      emit,
      ...(setup ? { setup } : {}),
    });
  } finally {
    run.endPhase("agent");
    await sandbox.dispose();
    await setup?.dispose();
  }
}

/**
 * The disk or memory budget ran out: the attempt is `limit-exceeded` (`limitHit: "disk"` or
 * `"memory"`), whatever the agent said.
 */
function budgetLimit(run: AttemptRun, hit: AttemptLimitHit): void {
  const { state } = run;
  if (state.limitHit !== undefined) return;
  state.status = "succeeded";
  fail(state, "limit-exceeded", { code: "LIMIT_EXCEEDED", message: hit.message });
  state.limitHit = hit.limit;
}

function formatMiB(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MiB`;
}

/** The agent's status as the attempt's, unless its disk or memory budget ran out first. */
async function takeOutcome(run: AttemptRun, outcome: AgentOutcome): Promise<void> {
  const { state } = run;
  state.usage = outcome.usage;
  if (run.signal.aborted)
    throw new DistDebugError({ code: "ABORTED", message: "the run was interrupted" });
  if (outcome.status !== "succeeded")
    fail(state, outcome.status, {
      code: outcome.status === "limit-exceeded" ? "LIMIT_EXCEEDED" : "AGENT_ERROR",
      message: outcome.message ?? outcome.status,
    });
  const hit = await run.resources.limitHit();
  if (hit) budgetLimit(run, hit);
}

/**
 * The boundary around everything the harness does with what the agent left behind (reading,
 * parsing, converting, serializing, scoring its diagnosis): whatever `step` throws is the
 * agent's fault, so the attempt becomes `agent-error` with a one-line reason, never
 * `infra-error`. Returns {@link AGENT_FAULT} then. An interruption stays an interruption.
 */
async function agentOutput<T>(run: AttemptRun, step: () => Promise<T>): Promise<T | AgentFault> {
  try {
    return await step();
  } catch (caught) {
    if (run.signal.aborted) throw caught;
    const { message } = errorOf(caught);
    fail(run.state, "agent-error", {
      code: "AGENT_ERROR",
      message: `the agent's output could not be handled: ${errorHeadline(message)}`,
    });
    return AGENT_FAULT;
  }
}

/** What {@link agentOutput} returns when the agent's output made its step fail. */
const AGENT_FAULT = Symbol("agent-fault");
type AgentFault = typeof AGENT_FAULT;

/** The files of an attempt folder that come from the agent's output, by name, ready to write. */
type OutputFiles = Map<string, string | Uint8Array>;

/**
 * The agent's files, handled inside {@link agentOutput}, then written by the harness (a failed
 * write is the harness's fault: its disk). The trajectory is always written: the harness's
 * empty record when the agent's could not be handled.
 */
async function collectOutputs(run: AttemptRun, outcome: AgentOutcome): Promise<void> {
  const files: OutputFiles = new Map();
  await agentOutput(run, () => readOutputs(run, outcome, files));
  if (!files.has(ATTEMPT_FILES.trajectory))
    files.set(ATTEMPT_FILES.trajectory, serialize(harnessTrajectory(run)));
  for (const [name, data] of files) await run.writeOutput(name, data);
}

/**
 * The agent's diagnosis with the attempt's opaque task id mapped back to the real incident id
 * (outside the sandbox): results keep the real id, and a diagnosis for the task it was given
 * is a diagnosis for its incident. Both ids are plain `[a-z0-9._-]` text, so JSON stays valid.
 */
function realIdentity(run: AttemptRun, bytes: Buffer): Buffer {
  const text = bytes.toString("utf8");
  if (!text.includes(run.taskId)) return bytes;
  return Buffer.from(text.replaceAll(run.taskId, run.incidentId), "utf8");
}

/**
 * The agent's files: validated; the diagnosis kept as written, the trajectory normalized. A
 * file that is not a plain regular file under its size limit is the agent's error and nothing
 * of it reaches the results.
 */
async function readOutputs(
  run: AttemptRun,
  outcome: AgentOutcome,
  files: OutputFiles,
): Promise<void> {
  const { state, incidentId, attempt, resources } = run;
  const refuse = (unsafe: UnsafeAgentFile) => {
    if (state.error?.code === "UNSAFE_AGENT_FILE" || state.limitHit === "disk") return;
    state.status = "agent-error";
    state.error = { code: "UNSAFE_AGENT_FILE", message: unsafe.error.message };
  };
  const diagnosisBytes = await readAgentFile(
    resources.outputDir,
    ATTEMPT_FILES.diagnosis,
    MAX_DIAGNOSIS_BYTES,
  );
  if (diagnosisBytes instanceof UnsafeAgentFile) refuse(diagnosisBytes);
  else if (diagnosisBytes) {
    const diagnosisWritten = realIdentity(run, diagnosisBytes);
    files.set(ATTEMPT_FILES.diagnosis, diagnosisWritten);
    try {
      state.diagnosis = parseDiagnosis(diagnosisWritten, {
        source: attemptPath(incidentId, attempt, ATTEMPT_FILES.diagnosis),
      });
    } catch (invalid) {
      fail(state, "agent-error", errorOf(invalid));
    }
  } else
    fail(state, "agent-error", {
      code: "NO_DIAGNOSIS",
      message: "the agent wrote no diagnosis.json",
    });
  await collectTrajectory(run, outcome.trajectory, refuse, files);
}

/** The trajectory's word for how an attempt ended. */
function trajectoryExitStatusOf(status: AttemptStatus): TrajectoryExitStatus {
  if (status === "succeeded") return "submitted";
  return status === "limit-exceeded" ? "limit-exceeded" : "error";
}

/** The harness's own record of an attempt whose trajectory is missing or was dropped. */
function harnessTrajectory(run: AttemptRun): Trajectory {
  return {
    format: "distdebug.trajectory/1",
    incidentId: run.incidentId,
    agent: { name: run.options.agent.name },
    exitStatus: trajectoryExitStatusOf(run.state.status),
    usage: run.state.usage,
    steps: [],
  };
}

/**
 * The trajectory the agent's runner returned (recorded or checked by the harness), else the
 * one the agent wrote; capped at 32 MiB serialized. The file is checked either way.
 */
async function collectTrajectory(
  run: AttemptRun,
  recorded: Trajectory | undefined,
  refuse: (unsafe: UnsafeAgentFile) => void,
  files: OutputFiles,
): Promise<void> {
  const { state, incidentId, attempt } = run;
  let trajectory = recorded;
  const bytes = await readAgentFile(
    run.resources.outputDir,
    ATTEMPT_FILES.trajectory,
    MAX_TRAJECTORY_BYTES,
  );
  const source = attemptPath(incidentId, attempt, ATTEMPT_FILES.trajectory);
  if (bytes instanceof UnsafeAgentFile) refuse(bytes);
  // Too deep or too large is the agent's error whoever parses the file (throws to agentOutput).
  else if (bytes) checkJsonText(bytes, { source });
  if (bytes && !(bytes instanceof UnsafeAgentFile) && !recorded) {
    try {
      trajectory = parseTrajectory(bytes, { source });
    } catch {
      // Kept as written for inspection.
      files.set("trajectory.invalid.json", bytes);
    }
  }
  // The agent knew its task id only: the stored trajectory names the real incident.
  const text = trajectory ? serialize({ ...trajectory, incidentId }) : undefined;
  if (text !== undefined && Buffer.byteLength(text) > MAX_TRAJECTORY_BYTES) {
    // The harness's own record of a run that grew past the cap: its steps are dropped.
    fail(state, "limit-exceeded", {
      code: "LIMIT_EXCEEDED",
      message: `the trajectory grew to ${formatMiB(Buffer.byteLength(text))}, over the ${formatMiB(MAX_TRAJECTORY_BYTES)} limit; its steps were dropped`,
    });
    state.limitHit ??= "file-size";
  } else if (text !== undefined) files.set(ATTEMPT_FILES.trajectory, text);
}

/**
 * Scores a finished attempt from its staged files with the one scoring path of `score` and
 * `verify` ({@link scoreAttemptFolder}; a failed one scores 0 whatever it wrote, STATS.md).
 * Scoring the agent's diagnosis is handling its output: a failure, or a diagnosis that outlasts
 * the scoring deadline, is the agent's (`agent-error`), and the attempt is scored again
 * without it, as `score` scores it later. Scoring no diagnosis is the harness's own work (a
 * failure is an infra error). Returns the metrics for the attempt's end event.
 */
async function scoreAttempt(
  run: AttemptRun,
  scorer: IncidentScorer,
): Promise<ScoreMetrics | undefined> {
  const { state } = run;
  run.phase("scoring");
  const scoring = () =>
    scoreAttemptFolder({
      dir: run.folder.dir,
      status: state.status,
      scorer,
      label: attemptPath(run.incidentId, run.attempt),
    });
  try {
    let scored = state.status === "succeeded" ? await agentOutput(run, scoring) : await scoring();
    const deadline =
      scored !== AGENT_FAULT &&
      scored.scores.warnings.find((w) => w.code === "scoring-deadline-exceeded");
    if (deadline) fail(state, "agent-error", { code: "AGENT_ERROR", message: deadline.message });
    if (scored === AGENT_FAULT || deadline) scored = await scoring();
    await run.folder.write(ATTEMPT_FILES.scores, scored.text);
    return scored.scores.metrics;
  } catch (caught) {
    state.status = "infra-error";
    state.error = errorOf(caught);
    return undefined;
  } finally {
    run.endPhase("scoring");
  }
}

/** A failure of the attempt's steps: interrupted, the disk or memory budget, or the harness's fault. */
async function classifyFailure(run: AttemptRun, caught: unknown): Promise<void> {
  const { state } = run;
  if (run.signal.aborted) {
    state.status = "interrupted";
    state.error = { code: "ABORTED", message: "the run was interrupted" };
    return;
  }
  // The agent filled its disk budget (the mini agent's own write to /output failed), or its memory.
  const hit = await run.resources.limitHit().catch(() => undefined);
  if (hit) budgetLimit(run, hit);
  else {
    state.status = "infra-error";
    state.error = errorOf(caught);
  }
}

/** Builds the per-attempt step context. */
function attemptRun(
  options: RunAttemptOptions,
  taskId: string,
  resources: AttemptSandbox,
  folder: AttemptRun["folder"],
): AttemptRun {
  const emit = options.onEvent ?? (() => {});
  const timings: Record<string, number> = {};
  const state: AttemptState = { status: "succeeded", usage: emptyUsage(), outputs: {} };
  let phaseStart = Date.now();
  const { attempt } = options;
  const incidentId = options.incident.id;
  return {
    options,
    incidentId,
    taskId,
    attempt,
    signal: options.signal ?? new AbortController().signal,
    emit,
    state,
    timings,
    resources,
    folder,
    phase(name) {
      emit({ type: "attempt-phase", incidentId, attempt, phase: name });
      phaseStart = Date.now();
    },
    endPhase(name) {
      timings[name] = (timings[name] ?? 0) + (Date.now() - phaseStart);
    },
    async writeOutput(name, data) {
      state.outputs[name] = sha256Hex(await folder.write(name, data));
    },
  };
}

/** `attempt.json`, from the attempt's state (no metrics: they live in diagnosis_scores.json). */
function attemptRecord(run: AttemptRun, startedAt: Date, backend: string): Attempt {
  const { state } = run;
  const endedAt = new Date();
  return {
    format: "distdebug.attempt/1",
    incidentId: run.incidentId,
    attempt: run.attempt,
    status: state.status,
    ...(state.error ? { error: state.error } : {}),
    ...(state.limitHit && state.status === "limit-exceeded" ? { limitHit: state.limitHit } : {}),
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: endedAt.getTime() - startedAt.getTime(),
    timings: run.timings,
    usage: state.usage,
    inputHash: run.options.inputHash,
    incidentDigest: run.options.incident.digest,
    outputs: state.outputs,
    sandbox: {
      backend,
      policy: run.resources.policy,
      enforcement: run.resources.enforcement,
      ...(run.options.protectedPaths ? { protectedPaths: [...run.options.protectedPaths] } : {}),
    },
  };
}

/**
 * Runs one attempt end to end: a fresh copy of the incident's anonymized workspace, the
 * leakage check (a leak is an infra error), the sandbox, the agent, validation of its
 * `diagnosis.json` and `trajectory.json`, scoring against the pristine buggy tree, and last,
 * atomically, `attempt.json`. The attempt holds a uid of its own and disk budgets on its
 * workspace and `/output` while it runs (as root; see `createAttemptSandbox`). The attempt
 * folder is built aside and renamed into place, so it is either complete or absent. Never
 * throws for the agent's or the harness's failures: they become the attempt's status.
 */
export async function runAttempt(options: RunAttemptOptions): Promise<Attempt> {
  const { incident, attempt } = options;
  const startedAt = new Date();
  const policy = attemptPolicy(options);
  const folder = await stageAttemptFolder({
    outDir: options.outDir,
    incidentId: incident.id,
    attempt,
    secrets: options.secrets ?? [],
  });
  // The work folder's host path shows in the sandbox's /proc/self/mountinfo: named by the
  // opaque task id, never the incident id.
  const taskId = opaqueTaskId();
  const work = await mkdtemp(join(options.tempDir, workDirPrefix(taskId, attempt)));
  const resources = await createAttemptSandbox({ dir: work, policy });
  const run = attemptRun(options, taskId, resources, folder);
  run.emit({ type: "attempt-start", incidentId: incident.id, attempt });
  let prepared: PreparedIncident | undefined;
  try {
    prepared = await options.prepared;
    await prepareWork(run, prepared);
    const outcome = await runAgent(run);
    await takeOutcome(run, outcome);
    await collectOutputs(run, outcome);
  } catch (caught) {
    await classifyFailure(run, caught);
  }
  const metrics =
    prepared?.scorer && isFinished(run.state.status)
      ? await scoreAttempt(run, prepared.scorer)
      : undefined;
  // The record the run returns and reports is the one written: its secrets redacted (an error
  // message can quote what a failing program printed).
  const record = parseAttempt(
    Buffer.from(
      await folder.write(
        ATTEMPT_FILES.attempt,
        serialize(attemptRecord(run, startedAt, policy.backend)),
      ),
    ),
    { source: attemptPath(incident.id, attempt, ATTEMPT_FILES.attempt) },
  );
  // A kill between the two renames of commit leaves no attempt folder: the attempt is redone.
  await folder.commit();
  await resources.release();
  await rm(work, { recursive: true, force: true }).catch(() => {});
  run.emit({
    type: "attempt-end",
    incidentId: incident.id,
    attempt,
    record,
    ...(metrics ? { metrics } : {}),
  });
  return record;
}
