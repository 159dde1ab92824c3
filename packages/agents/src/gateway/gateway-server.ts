import { rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import {
  type CallTokens,
  DistDebugError,
  errorMessage,
  type ModelConfig,
  usageFromWire,
} from "@distdebug/schema";
import { isRetryableStatus, neverSent, retryAfterMs, withRetries } from "../model/retry.js";
import type { Admission, MeteredCall, UsageMeter } from "../model/usage-meter.js";
import { enforceParameters } from "./config-parameters.js";
import { createPrivateSocketDir, restrictSocket, type SocketOwner } from "./private-socket.js";
import { hideCacheUsage } from "./reply-usage.js";
import {
  capOutput,
  defaultOutputCap,
  disableStorage,
  requestRefusal,
  worstCaseTokens,
} from "./request-policy.js";

/** The provider's API when `model.baseUrl` is not set. */
export const DEFAULT_BASE_URLS = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
} as const;

/** The paths the gateway forwards, per protocol (as the agent calls them on the loopback URL). */
export const GATEWAY_ROUTES = {
  openai: ["/v1/chat/completions", "/v1/responses"],
  anthropic: ["/v1/messages"],
} as const;

/**
 * Connections one gateway holds at once; more are closed as they come (each costs the
 * harness a file descriptor, and an agent can open thousands).
 */
const MAX_CONNECTIONS = 128;

/** Largest request body accepted from the agent. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Options of {@link startGateway}. */
export interface StartGatewayOptions {
  /** The model the config names: its protocol, upstream base URL, name, timeout, retries. */
  model: ModelConfig;
  /** The real key; added to upstream requests only, never sent back. */
  apiKey: string;
  /** Meters every call and holds the cost and token budget. */
  meter: UsageMeter;
  /** Folder for the socket. Default: a new short-named folder (mode 0700) in the OS temp dir. */
  dir?: string;
  /**
   * The only user that may connect (besides root): the uid:gid the sandbox runs commands as
   * when the host runs as root. Default: the caller's own uid (socket mode 0600).
   */
  owner?: SocketOwner;
  /** Delay before the first retry of an upstream 429/5xx. Default 1000 ms. */
  retryInitialDelayMs?: number;
  /** Called after each metered call. */
  onCall?: (call: MeteredCall) => void;
}

/** A running gateway: an HTTP server on a Unix socket, outside the sandbox. */
export interface ModelGateway {
  /** Host path of the socket (bind it at `/run/distdebug/gateway.sock` in the sandbox). */
  readonly socketPath: string;
  /** Set once a request was refused because the budget was used up. */
  readonly limitHit: string | undefined;
  /** Requests refused (budget, route, streaming, bad JSON). */
  readonly refused: number;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

function refusal(type: string, message: string) {
  return { type: "error", error: { type, message, code: type } };
}

/**
 * Request bytes one gateway holds at once over all its connections (bodies being read or in
 * flight): an agent that streams large bodies over many connections cannot grow the harness.
 */
const MAX_HELD_BYTES = 2 * MAX_BODY_BYTES;

/** The request bytes a gateway holds now, and those of one request (released when it ends). */
interface BodyHold {
  gateway: { held: number };
  request: number;
}

/** The body, or why it was not read whole: over the size limit, or over the gateway's hold. */
async function readBody(
  req: IncomingMessage,
  hold: BodyHold,
): Promise<Buffer | "too-large" | "busy"> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    const size = (chunk as Buffer).length;
    if (hold.request + size > MAX_BODY_BYTES) return "too-large";
    if (hold.gateway.held + size > MAX_HELD_BYTES) return "busy";
    hold.gateway.held += size;
    hold.request += size;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A retryable HTTP status from the upstream model API (code `UPSTREAM_STATUS`). */
class UpstreamStatus extends DistDebugError {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly text: string,
  ) {
    super({
      code: "UPSTREAM_STATUS",
      message: `the upstream model API answered HTTP ${status}; retry later or check the provider's status`,
      data: { status },
    });
  }
}

/** The request body as a JSON object, or undefined when it is too large, not JSON or not an object. */
function jsonObjectBody(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const body: unknown = JSON.parse(raw.toString("utf8"));
    return typeof body === "object" && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** What the forwarding steps of one gateway share. */
interface GatewayContext {
  options: StartGatewayOptions;
  upstreamBase: string;
  closing: AbortController;
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
  const { closing } = context;
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
      if (isRetryableStatus(response.status))
        throw new UpstreamStatus(response.status, response.headers, text);
      return { status: response.status, text, contentType: response.headers.get("content-type") };
    },
    (error) => {
      if (closing.signal.aborted) return { retryable: false };
      if (error instanceof UpstreamStatus) {
        const after = retryAfterMs(error.headers);
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
  const tokens = ok ? usageFromWire(model.provider, parsed) : undefined;
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
  if (error instanceof UpstreamStatus || neverSent(error)) return undefined;
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
  const message =
    error instanceof UpstreamStatus
      ? `upstream HTTP ${error.status} after ${model.maxRetries + 1} tries`
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
  if (error instanceof UpstreamStatus && !res.destroyed) {
    res.writeHead(error.status, {
      "content-type": error.headers.get("content-type") ?? "application/json",
    });
    res.end(error.text);
  } else sendJson(res, abandoned === undefined ? 502 : 504, refusal("gateway_error", message));
}

/**
 * Forwards one admitted request upstream, meters it and answers the agent (with the cache
 * counts folded into plain input, see `hideCacheUsage`).
 */
async function forward(
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
      res.end(hideCacheUsage(context.options.model.provider, reply.text));
    }
  } catch (error) {
    answerFailure(context, error, res, { worstCase: request.worstCase, started });
  }
}

/** Listens on the socket and restricts it to its owner; on failure removes the gateway's own folder. */
async function listenPrivately(
  server: Server,
  socketPath: string,
  dir: string,
  options: StartGatewayOptions,
): Promise<void> {
  const ownDir = options.dir === undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
    // Only the sandbox's user connects (the attempt's own uid as root); bwrap may run as that
    // user (user-namespace mode as root), so it owns the private folder too.
    await restrictSocket(socketPath, ownDir ? dir : undefined, options.owner);
  } catch (error) {
    if (ownDir) await rm(dir, { recursive: true, force: true });
    throw new DistDebugError({
      code: "SANDBOX_ERROR",
      message: `the model gateway could not listen on ${socketPath}: ${errorMessage(error)}`,
      cause: error,
    });
  }
}

/**
 * Starts the model gateway: an HTTP server on a Unix socket that the sandbox sees at
 * `/run/distdebug/gateway.sock`, reached from inside through the forwarder's loopback URL.
 * It accepts the config's protocol only (OpenAI `POST /v1/chat/completions` and
 * `/v1/responses`, or Anthropic `POST /v1/messages`), refuses with HTTP 400 any field outside
 * the route's allowlist, provider-side tools, `n > 1`, `stream`, `store` and `background`
 * (see `request-policy.ts`), content the provider would fetch by URL or look up in its
 * storage, makes the config's `model.parameters` what the provider receives (see
 * `enforceParameters`), caps the output when the request names no cap, sets `store: false`
 * on Responses API requests (stored by default there), admits a call
 * only if the worst case of all calls in flight fits the meter's budget (else HTTP 402
 * `budget_exceeded`, and `limitHit` is set), sets `model` to the config's model, adds the real
 * key, forwards to `model.baseUrl` with the config's timeout and retries (429, 5xx) and meters
 * the usage of every reply into `meter`, every token class at its price. A call it gives up
 * on (timeout, lost connection, the gateway closing) is not retried and is metered at its
 * admitted worst case. The reply the agent receives reports the provider's cache reads and
 * writes as plain input (see `hideCacheUsage`): the cache is shared across attempts.
 *
 * @example
 * ```ts
 * const meter = new UsageMeter({ prices: model.prices, budget: { costLimitUsd: 3 } });
 * const gateway = await startGateway({ model, apiKey, meter });
 * const sandbox = await createSandbox({ workspace, policy: { network: "gateway" }, gateway: gateway.socketPath });
 * // ... run the agent, then:
 * await gateway.close();
 * console.log(meter.usage);
 * ```
 */
export async function startGateway(options: StartGatewayOptions): Promise<ModelGateway> {
  const { model, meter } = options;
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await createPrivateSocketDir());
  const socketPath = join(dir, "gateway.sock");
  const context: GatewayContext = {
    options,
    upstreamBase: (model.baseUrl ?? DEFAULT_BASE_URLS[model.provider]).replace(/\/+$/, ""),
    closing: new AbortController(),
  };
  let limitHit: string | undefined;
  let refused = 0;
  const held = { held: 0 };

  const refuse = (res: ServerResponse, status: number, type: string, message: string) => {
    refused += 1;
    sendJson(res, status, refusal(type, message));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const routes: readonly string[] = GATEWAY_ROUTES[model.provider];
    if (req.method !== "POST" || !routes.includes(path)) {
      refuse(
        res,
        404,
        "not_found",
        `the DistDebug gateway serves ${model.provider} (${routes.map((route) => `POST ${route}`).join(", ")}) for the model ${model.name}; got ${req.method} ${path}`,
      );
      return;
    }
    const hold: BodyHold = { gateway: held, request: 0 };
    try {
      await readAndForward(path, req, res, hold);
    } finally {
      held.held -= hold.request;
    }
  };

  /** Reads the body within the gateway's hold, then admits and forwards it. */
  const readAndForward = async (
    path: string,
    req: IncomingMessage,
    res: ServerResponse,
    hold: BodyHold,
  ) => {
    const raw = await readBody(req, hold);
    if (raw === "busy") {
      res.setHeader("connection", "close");
      refuse(
        res,
        429,
        "rate_limit_error",
        `the gateway holds at most ${MAX_HELD_BYTES / (1024 * 1024)} MiB of request bodies at once: wait for the calls in flight and retry`,
      );
      return;
    }
    const body = raw === "too-large" ? undefined : jsonObjectBody(raw);
    if (body === undefined) {
      if (raw === "too-large") res.setHeader("connection", "close");
      refuse(
        res,
        400,
        "invalid_request_error",
        "the request body must be a JSON object (at most 32 MiB)",
      );
      return;
    }
    const admitted = admitRequest(path, body, req.headers["anthropic-beta"], res);
    if (admitted === undefined) return;
    try {
      await forward(context, { path, body, worstCase: admitted.worstCase }, req, res);
    } finally {
      admitted.admission.release();
    }
  };

  /** Checks the body against the allowlist and the budget: admits it, or refuses and returns undefined. */
  const admitRequest = (
    path: string,
    body: Record<string, unknown>,
    beta: unknown,
    res: ServerResponse,
  ): { admission: Admission; worstCase: CallTokens } | undefined => {
    const policy =
      beta === undefined
        ? requestRefusal(path, body)
        : "the anthropic-beta header is not forwarded by the DistDebug gateway (beta features may run tools at the provider or change prices)";
    if (policy !== undefined) {
      refuse(res, 400, "invalid_request_error", policy);
      return undefined;
    }
    enforceParameters(path, body, model.parameters);
    const outputCap = capOutput(path, body, defaultOutputCap(model));
    disableStorage(path, body);
    body.model = model.name;
    const worstCase = worstCaseTokens(body, outputCap);
    const admission = meter.admit(worstCase);
    if (typeof admission !== "string") return { admission, worstCase };
    limitHit ??= admission;
    refuse(
      res,
      402,
      "budget_exceeded",
      `the attempt's model budget has no room for this call: ${admission}`,
    );
    return undefined;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      sendJson(res, 500, refusal("gateway_error", errorMessage(error))),
    );
  });
  server.maxConnections = MAX_CONNECTIONS;
  await listenPrivately(server, socketPath, dir, options);
  return {
    socketPath,
    get limitHit() {
      return limitHit;
    },
    get refused() {
      return refused;
    },
    async close() {
      context.closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownDir) await rm(dir, { recursive: true, force: true });
      else await rm(socketPath, { force: true });
    },
  };
}
