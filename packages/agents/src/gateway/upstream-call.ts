import type { IncomingMessage, ServerResponse } from "node:http";
import { type CallTokens, DistDebugError, errorMessage, usageFromWire } from "@distdebug/schema";
import { type MockModel, wireProtocol } from "../model/mock-model.js";
import { isRetryableStatus, neverSent, retryAfterMs, withRetries } from "../model/retry.js";
import type { StartGatewayOptions } from "./gateway-options.js";
import { hideCacheUsage } from "./reply-usage.js";

/** Answers the agent with a JSON body (unless the answer was sent or the connection is gone). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** The error body of a refusal, in the shape both providers' SDKs read. */
export function refusal(type: string, message: string) {
  return { type: "error", error: { type, message, code: type } };
}

/** What an `UPSTREAM_STATUS` error carries: the answer, passed on to the agent as it came. */
interface UpstreamStatus {
  status: number;
  contentType: string | null;
  retryAfterMs: number | undefined;
  text: string;
}

/** A retryable HTTP status from the upstream model API (code `UPSTREAM_STATUS`). */
function upstreamStatusError(response: Response, text: string): DistDebugError<UpstreamStatus> {
  return new DistDebugError({
    code: "UPSTREAM_STATUS",
    message: `the upstream model API answered HTTP ${response.status}; retry later or check the provider's status`,
    data: {
      status: response.status,
      contentType: response.headers.get("content-type"),
      retryAfterMs: retryAfterMs(response.headers),
      text,
    },
  });
}

/** The upstream answer an `UPSTREAM_STATUS` error carries, or undefined for any other error. */
function upstreamStatus(error: unknown): UpstreamStatus | undefined {
  return DistDebugError.hasCode(error, "UPSTREAM_STATUS")
    ? (error.data as UpstreamStatus)
    : undefined;
}

/** What the forwarding steps of one gateway share. */
export interface GatewayContext {
  options: StartGatewayOptions;
  upstreamBase: string;
  closing: AbortController;
  /** For `provider: mock`: the scripted model that answers instead of an upstream API. */
  mock?: MockModel | undefined;
}

/** The upstream request headers: the real key, the protocol's version header. */
function upstreamHeaders(context: GatewayContext, req: IncomingMessage): Record<string, string> {
  const { model, apiKey } = context.options;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
  };
  if (model.provider === "anthropic") {
    headers["x-api-key"] = apiKey;
    headers["anthropic-version"] = String(req.headers["anthropic-version"] ?? "2023-06-01");
  } else headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

/**
 * Posts the body upstream with the model's timeout, and retries a 429 or 5xx answer or a
 * connection that failed before sending. A call that timed out, lost its connection or was
 * cancelled by the gateway's close is not retried (see {@link answerFailure}).
 */
function postUpstream(
  context: GatewayContext,
  path: string,
  headers: Record<string, string>,
  payload: string,
): Promise<{ status: number; text: string; contentType: string | null }> {
  const { model, retryInitialDelayMs } = context.options;
  const { closing, mock } = context;
  if (mock) {
    const text = JSON.stringify(mock.reply(JSON.parse(payload) as Record<string, unknown>));
    return Promise.resolve({ status: 200, text, contentType: "application/json" });
  }
  const upstreamPath = model.provider === "openai" ? path.replace(/^\/v1/, "") : path;
  return withRetries(
    async () => {
      const response = await fetch(`${context.upstreamBase}${upstreamPath}`, {
        method: "POST",
        headers,
        body: payload,
        signal: AbortSignal.any([closing.signal, AbortSignal.timeout(model.timeoutMs)]),
      });
      const text = await response.text();
      if (isRetryableStatus(response.status)) throw upstreamStatusError(response, text);
      return { status: response.status, text, contentType: response.headers.get("content-type") };
    },
    (error) => {
      if (closing.signal.aborted) return { retryable: false };
      const answered = upstreamStatus(error);
      if (answered) {
        const after = answered.retryAfterMs;
        return { retryable: true, ...(after === undefined ? {} : { retryAfterMs: after }) };
      }
      // A request that may have reached the provider is never sent again: it may be
      // generating (and billed) still, and each retry would be another generation.
      return { retryable: neverSent(error) };
    },
    {
      maxRetries: model.maxRetries,
      signal: closing.signal,
      ...(retryInitialDelayMs === undefined ? {} : { initialDelayMs: retryInitialDelayMs }),
    },
  );
}

/**
 * Meters one upstream reply: its usage; an error status as no tokens (the provider bills
 * none); a successful reply without usage at the call's worst case (it was generated, its
 * cost is unknown).
 */
function meterReply(
  context: GatewayContext,
  reply: { status: number; text: string },
  worstCase: CallTokens,
  started: number,
): void {
  const { model, meter } = context.options;
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.text);
  } catch {}
  const ok = reply.status >= 200 && reply.status < 300;
  const tokens = ok ? usageFromWire(wireProtocol(model.provider), parsed) : undefined;
  const name = (parsed as { model?: unknown })?.model;
  const common = {
    model: typeof name === "string" ? name : model.name,
    durationMs: Date.now() - started,
  };
  const call = tokens
    ? meter.record({ ...tokens, ...common })
    : ok
      ? meter.record({
          ...worstCase,
          ...common,
          worstCase: true,
          error: "the reply carried no usage: metered at the call's admitted worst case",
        })
      : meter.record({
          inputTokens: 0,
          outputTokens: 0,
          cachedTokens: 0,
          ...common,
          error: `HTTP ${reply.status}`,
        });
  context.options.onCall?.(call);
}

/** Why the gateway gave up on a call the provider may have received, or undefined when it never did. */
function abandonedBecause(context: GatewayContext, error: unknown): string | undefined {
  if (upstreamStatus(error) || neverSent(error)) return undefined;
  if (context.closing.signal.aborted) return "the attempt ended while the call was in flight";
  if ((error as { name?: unknown } | undefined)?.name === "TimeoutError")
    return `no reply within ${context.options.model.timeoutMs} ms`;
  return `the connection to the upstream model API failed: ${errorMessage(error)}`;
}

/**
 * Meters a call that got no reply, and answers the agent with the upstream's or the
 * gateway's error. A call the provider may have received (timed out, connection lost, the
 * attempt ended) is metered at its admitted worst case; one that never left (refused
 * connection) or was answered with an error status at zero tokens.
 */
function answerFailure(
  context: GatewayContext,
  error: unknown,
  res: ServerResponse,
  call: { worstCase: CallTokens; started: number },
): void {
  const { model, meter } = context.options;
  const abandoned = abandonedBecause(context, error);
  const durationMs = Date.now() - call.started;
  const answered = upstreamStatus(error);
  const message = answered
    ? `upstream HTTP ${answered.status} after ${model.maxRetries + 1} tries`
    : abandoned === undefined
      ? `the upstream model API could not be reached: ${errorMessage(error)}`
      : `${abandoned}; the call is not retried (it may still be generating) and is metered at its admitted worst case`;
  const step =
    abandoned === undefined
      ? meter.recordFailure({ model: model.name, durationMs, error: message })
      : meter.record({
          ...call.worstCase,
          model: model.name,
          durationMs,
          error: message,
          worstCase: true,
        });
  context.options.onCall?.(step);
  if (answered && !res.destroyed) {
    res.writeHead(answered.status, { "content-type": answered.contentType ?? "application/json" });
    res.end(answered.text);
  } else sendJson(res, abandoned === undefined ? 502 : 504, refusal("gateway_error", message));
}

/**
 * Forwards one admitted request upstream, meters it and answers the agent (with the cache
 * counts folded into plain input, see `hideCacheUsage`).
 */
export async function forward(
  context: GatewayContext,
  request: { path: string; body: Record<string, unknown>; worstCase: CallTokens },
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = Date.now();
  try {
    const reply = await postUpstream(
      context,
      request.path,
      upstreamHeaders(context, req),
      JSON.stringify(request.body),
    );
    meterReply(context, reply, request.worstCase, started);
    if (!res.destroyed) {
      res.writeHead(reply.status, { "content-type": reply.contentType ?? "application/json" });
      res.end(hideCacheUsage(wireProtocol(context.options.model.provider), reply.text));
    }
  } catch (error) {
    answerFailure(context, error, res, { worstCase: request.worstCase, started });
  }
}
