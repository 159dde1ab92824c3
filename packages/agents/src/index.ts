export type {
  Agent,
  AgentContext,
  AgentOutcome,
  AgentSetup,
  AgentSetupContext,
} from "./agent.js";
export {
  BASELINE_PROGRAM_PATH,
  baselineAgent,
  baselineProgramFile,
  DEFAULT_BASELINE_ROW_BUDGET,
} from "./baseline/baseline-agent.js";
export {
  type CommandAgentOptions,
  commandAgentEnv,
  createCommandAgent,
} from "./command/command-agent.js";
export { mergeTrajectory } from "./command/merge-trajectory.js";
export type { AgentEvent, AgentEventListener } from "./events.js";
export {
  FORWARDER_PROGRAM_PATH,
  forwarderProgramFile,
  GATEWAY_PLACEHOLDER_KEY,
  SANDBOX_NODE_PATH,
} from "./gateway/forwarder.js";
export {
  DEFAULT_BASE_URLS,
  GATEWAY_ROUTES,
  type ModelGateway,
  type StartGatewayOptions,
  startGateway,
} from "./gateway/gateway-server.js";
export { createMiniAgent, type MiniAgentOptions } from "./mini/mini-agent.js";
export {
  DEFAULT_FORMAT_ERROR_TEMPLATE,
  DEFAULT_INSTANCE_TEMPLATE,
  DEFAULT_SYSTEM_TEMPLATE,
  renderTemplate,
  SUBMIT_SENTINEL,
  TEMPLATE_VARIABLES,
  type TemplateVariable,
} from "./mini/templates.js";
export { apiKeyEnvName, resolveApiKey } from "./model/api-key.js";
export {
  type CompleteOptions,
  type CreateModelClientOptions,
  createModelClient,
  type ModelClient,
  type ModelMessage,
  type ModelReply,
} from "./model/model-client.js";
export { costOf } from "./model/pricing.js";
export { type RetryOptions, withRetries } from "./model/retry.js";
export { type MeteredCall, type UsageBudget, UsageMeter } from "./model/usage-meter.js";
export { agentFor } from "./registry.js";
