/**
 * The `Agent` interface and the built-in agents, the model clients, and the metering model gateway
 * that keeps the API key outside the sandbox.
 *
 * @packageDocumentation
 * @module @distdebug/agents
 */
export type { Agent, AgentContext, AgentOutcome, AgentSetup, AgentSetupContext } from "./agent.js";
export {
  baselineAgent,
  baselineProgramFile,
  DEFAULT_BASELINE_ROW_BUDGET,
} from "./baseline/baseline-agent.js";
export { type CommandAgentOptions, createCommandAgent } from "./command/command-agent.js";
export type { AgentEvent, AgentEventListener } from "./events.js";
export { forwarderProgramFile } from "./gateway/forwarder.js";
export {
  type ModelGateway,
  type StartGatewayOptions,
  startGateway,
} from "./gateway/gateway-server.js";
export { createMiniAgent, type MiniAgentOptions } from "./mini/mini-agent.js";
export { SUBMIT_SENTINEL } from "./mini/templates.js";
export { apiKeyEnvName, needsApiKey } from "./model/api-key.js";
export {
  createMockModel,
  type MockCompletion,
  type MockModel,
  type MockReply,
  readMockScript,
} from "./model/mock-model.js";
export {
  type CompleteOptions,
  type CreateModelClientOptions,
  createModelClient,
  type ModelClient,
  type ModelMessage,
  type ModelReply,
} from "./model/model-client.js";
export { costOf, worstCaseCostOf } from "./model/pricing.js";
export { type RetryOptions, withRetries } from "./model/retry.js";
export { type MeteredCall, type UsageBudget, UsageMeter } from "./model/usage-meter.js";
export { agentFor } from "./registry.js";
