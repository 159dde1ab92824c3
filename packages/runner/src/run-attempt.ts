import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Agent, AgentOutcome } from "@distdebug/agents";
import { type DatasetIncident, writeAgentTaskFolder } from "@distdebug/dataset";
import { ATTEMPT_FILES, attemptPath, stageAttemptFolder } from "@distdebug/results";
import { createSandbox } from "@distdebug/sandbox";
import {
  type Attempt,
  type AttemptStatus,
  type Diagnosis,
  DistDebugError,
  emptyUsage,
  errorMessage,
  MAX_DIAGNOSIS_BYTES,
  MAX_TRAJECTORY_BYTES,
  parseDiagnosis,
  parseTrajectory,
  type RunConfig,
  readFileChecked,
  type SandboxPolicy,
  SandboxPolicy as SandboxPolicySchema,
  serialize,
  sha256Hex,
  type Trajectory,
  type Usage,
} from "@distdebug/schema";
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
  signal?: AbortSignal;
  onEvent?: RunEventListener;
}

function errorOf(error: unknown): { code: string; message: string } {
  if (DistDebugError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: "INTERNAL", message: errorMessage(error) };
}

/** Why an agent-written file was refused: one line, becomes the attempt's `agent-error`. */
class UnsafeAgentFile {
  constructor(readonly error: { code: string; message: string }) {}
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

/**
 * Runs one attempt end to end: a fresh copy of the incident's anonymized workspace, the
 * leakage check (a leak is an infra error), the sandbox, the agent, validation of its
 * `diagnosis.json` and `trajectory.json`, scoring against the pristine buggy tree, and last,
 * atomically, `attempt.json`. The attempt folder is built aside and renamed into place, so it
 * is either complete or absent. Never throws for the agent's or the harness's failures: they
 * become the attempt's status.
 */
export async function runAttempt(options: RunAttemptOptions): Promise<Attempt> {
  const { incident, attempt } = options;
  let prepared: PreparedIncident | undefined;
  const emit = options.onEvent ?? (() => {});
  const incidentId = incident.id;
  const startedAt = new Date();
  const timings: Record<string, number> = {};
  const signal = options.signal ?? new AbortController().signal;
  const policy: SandboxPolicy = SandboxPolicySchema.parse({
    ...options.config.environment.sandbox,
    readOnlyBinds: [
      ...options.config.environment.sandbox.readOnlyBinds,
      ...(options.agent.binds?.(options.config) ?? []),
    ],
    ...(options.agent.network?.(options.config)
      ? { network: options.agent.network(options.config) }
      : {}),
  });
  const folder = await stageAttemptFolder({
    outDir: options.outDir,
    incidentId,
    attempt,
    secrets: options.secrets ?? [],
  });
  const work = await mkdtemp(join(options.tempDir, workDirPrefix(incidentId, attempt)));
  emit({ type: "attempt-start", incidentId, attempt });

  let phaseStart = Date.now();
  const phase = (name: AttemptPhase) => {
    emit({ type: "attempt-phase", incidentId, attempt, phase: name });
    phaseStart = Date.now();
  };
  const endPhase = (name: AttemptPhase) => {
    timings[name] = (timings[name] ?? 0) + (Date.now() - phaseStart);
  };

  let status: AttemptStatus = "succeeded";
  let error: { code: string; message: string } | undefined;
  let usage: Usage = emptyUsage();
  let diagnosis: Diagnosis | undefined;
  let backend = policy.backend;
  const outputs: Record<string, string> = {};
  const writeOutput = async (name: string, data: string | Uint8Array) => {
    outputs[name] = sha256Hex(await folder.write(name, data));
  };

  try {
    const workspaceDir = join(work, "workspace");
    const taskDir = join(work, "task");
    const outputDir = join(work, "output");
    phase("workspace");
    prepared = await options.prepared;
    await prepared.materialize(workspaceDir, signal, (event) =>
      emit({ type: "attempt-workspace", incidentId, attempt, event }),
    );
    await mkdir(outputDir, { recursive: true });
    await writeAgentTaskFolder(prepared.task, taskDir);
    endPhase("workspace");

    phase("leakage");
    const findings = await prepared.checkLeakage(workspaceDir);
    endPhase("leakage");
    if (findings.length > 0) {
      throw new DistDebugError({
        code: "WORKSPACE_LEAK",
        message: `the workspace of ${incidentId} leaks the fix: ${findings.slice(0, 3).join("; ")}`,
        data: { findings },
      });
    }

    phase("sandbox");
    // Per-attempt agent resources (the model gateway) come before the sandbox that binds them.
    const setup = await options.agent.setup?.({
      incidentId,
      attempt,
      config: options.resolvedConfig,
      signal,
      emit,
    });
    const sandbox = await createSandbox({
      ...(setup?.gateway ? { gateway: setup.gateway } : {}),
      policy,
      workspace: workspaceDir,
      task: taskDir,
      output: outputDir,
      onEvent: (event) => emit({ type: "attempt-sandbox", incidentId, attempt, event }),
    }).catch(async (failed: unknown) => {
      await setup?.dispose();
      throw failed;
    });
    backend = sandbox.backend === "no-sandbox" ? "no-sandbox" : policy.backend;
    endPhase("sandbox");

    let outcome: AgentOutcome;
    phase("agent");
    try {
      outcome = await options.agent.run({
        incidentId,
        attempt,
        config: options.resolvedConfig,
        sandbox,
        taskDir,
        outputDir,
        workspaceDir,
        deadline: Date.now() + options.resolvedConfig.agent.wallTimeLimitSec * 1000,
        signal,
        emit,
        ...(setup ? { setup } : {}),
      });
    } finally {
      endPhase("agent");
      await sandbox.dispose();
      await setup?.dispose();
    }
    usage = outcome.usage;
    if (signal.aborted)
      throw new DistDebugError({ code: "ABORTED", message: "the run was interrupted" });
    if (outcome.status !== "succeeded") {
      status = outcome.status;
      error = {
        code: outcome.status === "limit-exceeded" ? "LIMIT_EXCEEDED" : "AGENT_ERROR",
        message: outcome.message ?? outcome.status,
      };
    }

    // The agent's files: validated; the diagnosis kept as written, the trajectory normalized.
    // A file that is not a plain regular file under its size limit is the agent's error and
    // nothing of it reaches the results.
    const refuse = (unsafe: UnsafeAgentFile) => {
      if (error?.code !== "UNSAFE_AGENT_FILE") {
        status = "agent-error";
        error = { code: "UNSAFE_AGENT_FILE", message: unsafe.error.message };
      }
    };
    const diagnosisBytes = await readAgentFile(
      outputDir,
      ATTEMPT_FILES.diagnosis,
      MAX_DIAGNOSIS_BYTES,
    );
    if (diagnosisBytes instanceof UnsafeAgentFile) refuse(diagnosisBytes);
    else if (diagnosisBytes) {
      await writeOutput(ATTEMPT_FILES.diagnosis, diagnosisBytes);
      try {
        diagnosis = parseDiagnosis(diagnosisBytes, {
          source: attemptPath(incidentId, attempt, ATTEMPT_FILES.diagnosis),
        });
      } catch (invalid) {
        if (status === "succeeded") {
          status = "agent-error";
          error = errorOf(invalid);
        }
      }
    } else if (status === "succeeded") {
      status = "agent-error";
      error = { code: "NO_DIAGNOSIS", message: "the agent wrote no diagnosis.json" };
    }
    let trajectory: Trajectory | undefined = outcome.trajectory;
    const trajectoryBytes = await readAgentFile(
      outputDir,
      ATTEMPT_FILES.trajectory,
      MAX_TRAJECTORY_BYTES,
    );
    if (trajectoryBytes instanceof UnsafeAgentFile) refuse(trajectoryBytes);
    else if (trajectoryBytes) {
      try {
        trajectory = parseTrajectory(trajectoryBytes, {
          source: attemptPath(incidentId, attempt, ATTEMPT_FILES.trajectory),
        });
      } catch {
        // Kept as written below for inspection; the harness's own record is used when it has one.
        if (!trajectory) await writeOutput("trajectory.invalid.json", trajectoryBytes);
      }
    }
    trajectory ??= {
      format: "distdebug.trajectory/1",
      incidentId,
      agent: { name: options.agent.name },
      exitStatus: status,
      usage,
      steps: [],
    };
    await writeOutput(ATTEMPT_FILES.trajectory, serialize(trajectory));
  } catch (caught) {
    if (signal.aborted) {
      status = "interrupted";
      error = { code: "ABORTED", message: "the run was interrupted" };
    } else {
      status = "infra-error";
      error = errorOf(caught);
    }
  }

  let metrics: Attempt["metrics"];
  if (prepared && status !== "infra-error" && status !== "interrupted") {
    phase("scoring");
    try {
      // A failed attempt scores 0 whatever it wrote (STATS.md): only a success's diagnosis counts.
      const scores = await prepared.score(
        status === "succeeded" ? diagnosis : undefined,
        incidentId,
      );
      if (scores) {
        await writeOutput(ATTEMPT_FILES.scores, serialize(scores));
        metrics = scores.metrics;
      }
    } catch (caught) {
      status = "infra-error";
      error = errorOf(caught);
    }
    endPhase("scoring");
  }

  const endedAt = new Date();
  const record: Attempt = {
    format: "distdebug.attempt/1",
    incidentId,
    attempt,
    status,
    ...(error ? { error } : {}),
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: endedAt.getTime() - startedAt.getTime(),
    timings,
    usage,
    inputHash: options.inputHash,
    outputs,
    ...(metrics ? { metrics } : {}),
    sandbox: { backend, policy },
  };
  await folder.write(ATTEMPT_FILES.attempt, serialize(record));
  // A kill between the two renames of commit leaves no attempt folder: the attempt is redone.
  await folder.commit();
  await rm(work, { recursive: true, force: true }).catch(() => {});
  emit({ type: "attempt-end", incidentId, attempt, record });
  return record;
}
