import type { CallTokens, ModelConfig } from "@distdebug/schema";

/** A chat message sent to the model. */
export interface ModelMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** The model's answer to one call, with what it cost in tokens. */
export interface ModelReply {
  /** The assistant's text. */
  content: string;
  tokens: CallTokens;
  /** The model name the server reported, else the configured one. */
  model: string;
  /** Wall time of the call including retries. */
  durationMs: number;
  /** Retries used (429, 5xx, timeouts). */
  retries: number;
}

/** Per-call options of {@link ModelClient.complete}. */
export interface CompleteOptions {
  signal?: AbortSignal;
  /** Overrides the config's `timeoutMs` for this call (for example to end at a deadline). */
  timeoutMs?: number;
}

/** A model behind one wire protocol. Throws `MODEL_ERROR` (after retries) or `ABORTED`. */
export interface ModelClient {
  readonly provider: ModelConfig["provider"];
  readonly model: string;
  complete(messages: readonly ModelMessage[], options?: CompleteOptions): Promise<ModelReply>;
}

/** Options of `createModelClient`. */
export interface CreateModelClientOptions {
  model: ModelConfig;
  apiKey: string;
  /** Delay before the first retry in milliseconds (doubles each retry). Default 1000. */
  retryInitialDelayMs?: number;
  /** Longest wait between retries. Default 30,000 ms. */
  retryMaxDelayMs?: number;
  /** Called before each retry. */
  onRetry?: (info: { attempt: number; delayMs: number; message: string }) => void;
}
