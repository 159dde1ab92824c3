import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A recorded request to the fake server. */
export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

/** One scripted answer. */
export interface FakeReply {
  status?: number;
  /** An object is sent as JSON; a string as is (for malformed bodies). */
  body: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (to test timeouts). */
  delayMs?: number;
}

/** What the test wants back for a request: a reply, or the text the model "says". */
export type FakeResponder = (request: FakeRequest, index: number) => FakeReply;

/** A loopback HTTP server speaking a model protocol from a script (test support only). */
export interface FakeModelServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: FakeRequest[];
  close(): Promise<void>;
}

/** OpenAI Chat Completions body with the given text and usage. */
export function openAiBody(
  content: string,
  usage = { input: 100, output: 20, cached: 0 },
  model = "fake-model",
) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 0,
    model,
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: usage.cached },
    },
  };
}

/**
 * Anthropic Messages body with the given text and usage (`input` excludes cache reads and
 * writes; `cacheWrite5m` and `cacheWrite1h` add a `cache_creation` split by lifetime).
 */
export function anthropicBody(
  content: string,
  usage: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite5m?: number;
    cacheWrite1h?: number;
  } = { input: 100, output: 20, cacheRead: 0 },
  model = "fake-model",
) {
  const write5m = usage.cacheWrite5m ?? 0;
  const write1h = usage.cacheWrite1h ?? 0;
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model,
    stop_reason: "end_turn",
    content: [{ type: "text", text: content }],
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      cache_read_input_tokens: usage.cacheRead,
      cache_creation_input_tokens: write5m + write1h,
      ...(write5m + write1h > 0
        ? {
            cache_creation: {
              ephemeral_5m_input_tokens: write5m,
              ephemeral_1h_input_tokens: write1h,
            },
          }
        : {}),
    },
  };
}

/**
 * Posts JSON (or raw text) to an HTTP server on a Unix socket (the model gateway); resolves
 * with the status and the parsed reply.
 */
export function postToSocket(
  socketPath: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path,
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(typeof body === "string" ? body : JSON.stringify(body));
  });
}

/** Starts the fake server on 127.0.0.1 with a responder (or a fixed list of replies, last repeated). */
export async function startFakeModelServer(
  script: FakeResponder | FakeReply[],
): Promise<FakeModelServer> {
  const requests: FakeRequest[] = [];
  const respond: FakeResponder = Array.isArray(script)
    ? (_request, index) =>
        script[Math.min(index, script.length - 1)] ?? { status: 500, body: "empty script" }
    : script;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      const request: FakeRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
      };
      const index = requests.length;
      requests.push(request);
      let reply: FakeReply;
      try {
        reply = respond(request, index);
      } catch (error) {
        reply = { status: 500, body: { error: { message: String(error) } } };
      }
      const send = () => {
        if (res.destroyed) return;
        const payload = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
        res.writeHead(reply.status ?? 200, {
          "content-type": "application/json",
          ...reply.headers,
        });
        res.end(payload);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
