import { rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { type CallTokens, DistDebugError, errorMessage } from "@distdebug/schema";
import { mockModelFor } from "../model/mock-model.js";
import type { Admission } from "../model/usage-meter.js";
import { enforceParameters } from "./config-parameters.js";
import type { StartGatewayOptions } from "./gateway-options.js";
import { createPrivateSocketDir, restrictSocket } from "./private-socket.js";
import {
  capOutput,
  defaultOutputCap,
  disableStorage,
  requestRefusal,
  worstCaseTokens,
} from "./request-policy.js";
import { forward, type GatewayContext, refusal, sendJson } from "./upstream-call.js";

export type { StartGatewayOptions } from "./gateway-options.js";

/** The provider's API when `model.baseUrl` is not set. */
export const DEFAULT_BASE_URLS = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  /** Never fetched: the mock model answers in the gateway's process. */
  mock: "mock://in-process",
} as const;

/** The paths the gateway forwards, per protocol (as the agent calls them on the loopback URL). */
export const GATEWAY_ROUTES = {
  openai: ["/v1/chat/completions", "/v1/responses"],
  anthropic: ["/v1/messages"],
  mock: ["/v1/chat/completions"],
} as const;

/**
 * Connections one gateway holds at once; more are closed as they come (each costs the
 * harness a file descriptor, and an agent can open thousands).
 */
const MAX_CONNECTIONS = 128;

/** Largest request body accepted from the agent. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

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
    mock: mockModelFor(model),
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
