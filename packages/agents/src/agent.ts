import type { Sandbox } from "@distdebug/sandbox";
import type { ReadOnlyBind, RunConfig, SandboxPolicy, Trajectory, Usage } from "@distdebug/schema";
import type { AgentEventListener } from "./events.js";

/** What an agent gets for one attempt. The sandbox binds the workspace, task and output folders. */
export interface AgentContext {
  /** The incident, for the harness's events and records only: never shown to the agent. */
  incidentId: string;
  /**
   * The opaque per-attempt id the agent is shown instead (`task.json`'s `id`,
   * `DISTDEBUG_INCIDENT_ID`, the `{{incident_id}}` of prompts): it names no incident.
   */
  taskId: string;
  /** 1-based attempt number. */
  attempt: number;
  /** The run config with `${VAR}` references resolved (in memory only). */
  config: RunConfig;
  sandbox: Sandbox;
  /** Host folders; inside the sandbox they are `/task`, `/output` and `/workspace`. */
  taskDir: string;
  outputDir: string;
  workspaceDir: string;
  /** Epoch milliseconds by which the agent must have ended (the wall-time limit). */
  deadline: number;
  signal: AbortSignal;
  emit: AgentEventListener;
  /** What the agent's {@link Agent.setup} prepared for this attempt, if it has one. */
  setup?: AgentSetup;
}

/** What {@link Agent.setup} gets: the attempt, before its sandbox exists. */
export interface AgentSetupContext {
  incidentId: string;
  attempt: number;
  /** The run config with `${VAR}` references resolved (in memory only). */
  config: RunConfig;
  signal: AbortSignal;
  emit: AgentEventListener;
  /**
   * A private folder for the model gateway's socket, held by the attempt's sandbox (mode 0700,
   * as root the attempt's uid's; see `createAttemptSandbox`). Default: the gateway makes its own.
   */
  gatewayDir?: string;
}

/** Per-attempt resources an agent starts before the sandbox (the model gateway). */
export interface AgentSetup {
  /** Host path of the model gateway's Unix socket, bound at `/run/distdebug/gateway.sock`. */
  gateway?: string;
  /** Releases the resources; called once after the sandbox is disposed. */
  dispose(): Promise<void>;
}

/** How the agent ended, by its own account. The runner checks its files either way. */
export interface AgentOutcome {
  status: "succeeded" | "agent-error" | "limit-exceeded";
  /** Why it did not succeed. */
  message?: string;
  /** Token use the harness measured (zero for offline agents). */
  usage: Usage;
  /**
   * The trajectory as the harness recorded or checked it (the agent's own, merged with the
   * gateway's measurements); when given it stands, and `/output/trajectory.json` is only
   * checked to be a safe regular file. Without it, the runner reads the agent's file.
   */
  trajectory?: Trajectory;
}

/** An agent: what it needs in the sandbox, and how it runs. */
export interface Agent {
  /** `baseline`, `mini`, `command`. */
  name: string;
  /** Extra read-only binds the agent needs inside the sandbox (its own program). */
  binds?: (config: RunConfig) => ReadOnlyBind[];
  /** The sandbox network the agent needs, overriding the config's (`gateway` for model access). */
  network?: (config: RunConfig) => SandboxPolicy["network"] | undefined;
  /** Starts per-attempt resources before the sandbox is created (see {@link AgentSetup}). */
  setup?: (context: AgentSetupContext) => Promise<AgentSetup>;
  run: (context: AgentContext) => Promise<AgentOutcome>;
}
