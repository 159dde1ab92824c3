import {
  ALLOWED_REQUEST_FIELDS,
  configOutputCap,
  OUTPUT_CAP_FIELDS,
  TOKEN_CAP_PARAMETERS,
} from "./request-policy.js";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Request fields that are the agent's conversation or fixed by the gateway's policy, never
 * model parameters: a config naming one of them does not change them.
 */
const NOT_PARAMETERS = new Set([
  "model",
  "messages",
  "input",
  "instructions",
  "system",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "metadata",
  "user",
  "stream",
  "n",
  "store",
  "background",
]);

/** Object parameters merged into the agent's object (they also carry choices that are the agent's, such as `text.format`). */
const MERGED_PARAMETERS = new Set(["text"]);

/**
 * The config's parameters as the route names them: the Responses API takes
 * `reasoning_effort` as `reasoning.effort` and `verbosity` as `text.verbosity`, Chat
 * Completions the other way round. Token caps are left out (see {@link enforceParameters}).
 */
function routeParameters(route: string, parameters: Json): Json {
  const named: Json = {};
  for (const [field, value] of Object.entries(parameters))
    if (!TOKEN_CAP_PARAMETERS.includes(field)) named[field] = value;
  if (route === "/v1/responses") {
    if (named.reasoning_effort !== undefined) {
      named.reasoning = {
        ...(isObject(named.reasoning) ? named.reasoning : {}),
        effort: named.reasoning_effort,
      };
      delete named.reasoning_effort;
    }
    if (named.verbosity !== undefined) {
      named.text = { ...(isObject(named.text) ? named.text : {}), verbosity: named.verbosity };
      delete named.verbosity;
    }
  } else if (route === "/v1/chat/completions") {
    if (isObject(named.reasoning) && named.reasoning.effort !== undefined)
      named.reasoning_effort ??= named.reasoning.effort;
    if (isObject(named.text) && named.text.verbosity !== undefined)
      named.verbosity ??= named.text.verbosity;
    delete named.reasoning;
    delete named.text;
  }
  return named;
}

/**
 * Makes the config's `model.parameters` what the provider receives, whatever the agent sent:
 * - token caps (`max_tokens`, `max_completion_tokens`, `max_output_tokens`, any of them in
 *   the config) are a ceiling: the agent may ask for fewer, a larger cap is lowered to the
 *   config's (the gateway sets the config's cap when the agent names none, see `capOutput`);
 * - every other parameter the route forwards (`temperature`, `top_p`, `top_k`, `seed`,
 *   `reasoning_effort` or `reasoning`, `verbosity`, `thinking`, penalties, `stop`, ...)
 *   replaces the agent's value; `text` (Responses) is merged, so the agent keeps its own
 *   `text.format`;
 * - the conversation, tools and the fields the gateway fixes (`stream`, `n`, `store`,
 *   `background`) are never set from the config, and a parameter the route does not forward
 *   is not added.
 *
 * A parameter the config does not name stays the agent's choice.
 *
 * @example
 * ```ts
 * const body = { messages, reasoning_effort: "xhigh", max_completion_tokens: 64000 };
 * enforceParameters("/v1/chat/completions", body, { reasoning_effort: "low", max_tokens: 2000 });
 * // body: { messages, reasoning_effort: "low", max_completion_tokens: 2000 }
 * ```
 */
export function enforceParameters(route: string, body: Json, parameters: Json): void {
  const allowed = ALLOWED_REQUEST_FIELDS[route] ?? [];
  for (const [field, value] of Object.entries(routeParameters(route, parameters))) {
    if (NOT_PARAMETERS.has(field) || !allowed.includes(field)) continue;
    const current = body[field];
    body[field] =
      MERGED_PARAMETERS.has(field) && isObject(current) && isObject(value)
        ? { ...current, ...value }
        : value;
  }
  const cap = configOutputCap(parameters);
  if (cap === undefined) return;
  for (const field of OUTPUT_CAP_FIELDS[route] ?? []) {
    const asked = body[field];
    if (typeof asked === "number" && asked > cap) body[field] = cap;
  }
}
