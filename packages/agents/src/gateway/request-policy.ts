import type { CallTokens, ModelConfig } from "@distdebug/schema";

type Json = Record<string, unknown>;

/** Output cap the gateway sets on a request that names none (a config's `model.parameters` may set another). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;

/** Request fields the gateway forwards, per route; any other field is refused. */
export const ALLOWED_REQUEST_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "/v1/chat/completions": [
    "model",
    "messages",
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "logit_bias",
    "logprobs",
    "top_logprobs",
    "response_format",
    "reasoning_effort",
    "verbosity",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "user",
    "n",
    "stream",
    "store",
  ],
  "/v1/responses": [
    "model",
    "input",
    "instructions",
    "temperature",
    "top_p",
    "max_output_tokens",
    "reasoning",
    "text",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "truncation",
    "user",
    "stream",
    "store",
    "background",
  ],
  "/v1/messages": [
    "model",
    "messages",
    "system",
    "max_tokens",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "tools",
    "tool_choice",
    "thinking",
    "metadata",
    "stream",
  ],
};

/** The field that caps a reply's output tokens, per route. */
export const OUTPUT_CAP_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "/v1/chat/completions": ["max_completion_tokens", "max_tokens"],
  "/v1/responses": ["max_output_tokens"],
  "/v1/messages": ["max_tokens"],
};

/** Flags that must be absent or hold exactly this value (they bypass metering or the sandbox). */
const FIXED_VALUES: readonly [field: string, value: unknown, why: string][] = [
  ["stream", false, "the gateway meters whole replies: send stream: false"],
  ["n", 1, "one choice per call: n > 1 multiplies the cost outside the budget"],
  ["store", false, "stored responses outlive the attempt: send store: false"],
  ["background", false, "background responses run outside the attempt: send background: false"],
];

/**
 * Why a provider-side tool is refused, or undefined for a plain function tool the agent
 * runs itself (OpenAI `type: "function"`, Anthropic a tool without `type` or `type: "custom"`).
 */
function toolRefusal(tool: unknown, route: string): string | undefined {
  const type = typeof tool === "object" && tool !== null ? (tool as Json).type : undefined;
  const plain =
    route === "/v1/messages" ? type === undefined || type === "custom" : type === "function";
  return plain
    ? undefined
    : `the tool of type ${JSON.stringify(type ?? null)} runs at the provider (web search, file search, code interpreter, computer use, MCP): only function tools the agent runs itself are forwarded`;
}

/** The request fields that carry the conversation (content the provider reads), per route. */
const CONTENT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "/v1/chat/completions": ["messages"],
  "/v1/responses": ["input", "instructions"],
  "/v1/messages": ["messages", "system"],
};

/** Keys of content parts whose value the provider fetches when it is a URL (a `data:` URL is inline). */
const FETCHED_URL_KEYS = new Set(["url", "image_url", "file_url"]);

/** Keys of content parts that name something stored at the provider (uploaded files, stored items). */
const STORED_REFERENCE_KEYS = new Set(["file_id", "container_id", "vector_store_ids"]);

/**
 * Why a content part is refused, or undefined: a URL the provider would fetch (an image,
 * file or document by URL: a way to the internet) or a reference to something stored at
 * the provider (an uploaded file, a stored item: the operator's account, other attempts).
 */
function contentRefusal(value: unknown, where: string): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const refusal = contentRefusal(item, `${where}[${index}]`);
      if (refusal) return refusal;
    }
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const part = value as Json;
  if (part.type === "item_reference")
    return `${where}: an item_reference names an item stored at the provider: send the item itself`;
  for (const [key, field] of Object.entries(part)) {
    const path = `${where}.${key}`;
    const url = typeof field === "object" && field !== null ? (field as Json).url : field;
    if (FETCHED_URL_KEYS.has(key) && typeof url === "string" && !/^data:/i.test(url.trim()))
      return `${path}: ${JSON.stringify(url.slice(0, 100))} is a URL the provider would fetch (the sandbox has no internet): send the content inline (base64 or a data: URL)`;
    if (STORED_REFERENCE_KEYS.has(key))
      return `${path}: references something stored at the provider: send the content inline`;
    const refusal = contentRefusal(field, path);
    if (refusal) return refusal;
  }
  return undefined;
}

/**
 * Checks an agent's request body against the route's allowlist: every field must be a
 * messages/input field or a model parameter; provider-side tools, `n > 1`, `stream`,
 * `store`, `background` and `mcp_servers` are refused, and so is content the provider
 * would fetch by URL or look up in its storage (see {@link contentRefusal}). Returns the
 * refusal's message, or undefined when the body may be forwarded.
 */
export function requestRefusal(route: string, body: Json): string | undefined {
  const allowed = ALLOWED_REQUEST_FIELDS[route] ?? [];
  for (const field of Object.keys(body))
    if (!allowed.includes(field))
      return `the field ${JSON.stringify(field)} is not forwarded by the DistDebug gateway (allowed for ${route}: ${allowed.join(", ")})`;
  for (const [field, value, why] of FIXED_VALUES)
    if (field in body && body[field] !== value)
      return `${field}: ${JSON.stringify(body[field])} is refused: ${why}`;
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "tools must be a list";
    for (const tool of body.tools) {
      const refusal = toolRefusal(tool, route);
      if (refusal) return refusal;
    }
  }
  for (const field of OUTPUT_CAP_FIELDS[route] ?? [])
    if (field in body && !(Number.isInteger(body[field]) && (body[field] as number) > 0))
      return `${field} must be a positive integer`;
  for (const field of CONTENT_FIELDS[route] ?? []) {
    const refusal = contentRefusal(body[field], field);
    if (refusal) return refusal;
  }
  return undefined;
}

/**
 * Sets `store: false` on a Responses API request that names no `store`: that API stores
 * replies at the provider by default, where they would outlive the attempt.
 */
export function disableStorage(route: string, body: Json): void {
  if (route === "/v1/responses" && !("store" in body)) body.store = false;
}

/** Names a config may give its output cap (any of them caps every route). */
export const TOKEN_CAP_PARAMETERS: readonly string[] = [
  "max_output_tokens",
  "max_completion_tokens",
  "max_tokens",
];

/** The output cap a config's `model.parameters` names, or undefined. */
export function configOutputCap(parameters: Json): number | undefined {
  for (const field of TOKEN_CAP_PARAMETERS) {
    const value = parameters[field];
    if (typeof value === "number" && Number.isInteger(value) && value > 0) return value;
  }
  return undefined;
}

/** The output cap a config's `model.parameters` names, else {@link DEFAULT_MAX_OUTPUT_TOKENS}. */
export function defaultOutputCap(model: ModelConfig): number {
  return configOutputCap(model.parameters) ?? DEFAULT_MAX_OUTPUT_TOKENS;
}

/**
 * Sets the route's output cap on a body that names none (so the worst case is bounded) and
 * returns the body's output cap: the largest it names (a chat call may name both
 * `max_completion_tokens` and `max_tokens`, and an upstream may honour either).
 */
export function capOutput(route: string, body: Json, defaultCap: number): number {
  const fields = OUTPUT_CAP_FIELDS[route] ?? [];
  const named = fields.map((field) => body[field]).filter((cap) => typeof cap === "number");
  if (named.length > 0) return Math.max(...named);
  const field = fields[0];
  if (field !== undefined) body[field] = defaultCap;
  return defaultCap;
}

/**
 * The worst case of a call: its output cap, and its prompt estimated as one token per three
 * bytes of the request body (an over-estimate for English text and code, which average about
 * four characters a token).
 */
export function worstCaseTokens(body: Json, outputCap: number): CallTokens {
  const bytes = Buffer.byteLength(JSON.stringify(body));
  return { inputTokens: Math.ceil(bytes / 3), outputTokens: outputCap, cachedTokens: 0 };
}
