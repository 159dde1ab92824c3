/**
 * Per-call latency the model gateway adds, against a loopback OpenAI-compatible server that
 * answers at once (so the numbers are the harness's own cost, not a model's).
 *
 *   node --conditions=@distdebug/source --import tsx bench/gateway/overhead.ts [calls=300]
 *
 * Measures, interleaved per round on a shared, noisy machine: a direct HTTP POST to the
 * server; the same POST through the gateway's Unix socket (metering, key, model rewrite,
 * re-serialization); and the same through the gateway via the in-sandbox forwarder's
 * loopback port (run here on the host, without bubblewrap, to isolate the forwarder's cost).
 * Prints median and p95 of each. Target: gateway + forwarder <= 20 ms median over direct
 * (a model call takes seconds; this only has to stay out of the way).
 */
import { spawn } from "node:child_process";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { forwarderProgramFile, startGateway, UsageMeter } from "@distdebug/agents";
import { ModelConfig } from "@distdebug/schema";

const calls = Number(process.argv[2] ?? 300);
const reply = JSON.stringify({
  id: "c",
  object: "chat.completion",
  created: 0,
  model: "m",
  choices: [
    { index: 0, finish_reason: "stop", message: { role: "assistant", content: "x".repeat(2000) } },
  ],
  usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
});
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(reply);
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const meter = new UsageMeter();
const gateway = await startGateway({
  model: ModelConfig.parse({ provider: "openai", name: "m", baseUrl: `${base}/v1` }),
  apiKey: "sk-bench",
  meter,
});

// The forwarder, started on the host with a child that prints its base URL and then waits.
const forwarder = spawn(
  process.execPath,
  [forwarderProgramFile, "/bin/sh", "-c", 'echo "$OPENAI_BASE_URL"; exec sleep 3600'],
  {
    env: { DISTDEBUG_GATEWAY_SOCKET: gateway.socketPath, PATH: process.env.PATH ?? "" },
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const forwarded = await new Promise<string>((resolve) =>
  forwarder.stdout?.once("data", (chunk: Buffer) => resolve(chunk.toString().trim())),
);

const body = JSON.stringify({
  model: "m",
  messages: [{ role: "user", content: "y".repeat(20_000) }],
});
function post(target: { url?: string; socketPath?: string; path: string }): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const options = {
      method: "POST",
      headers: { "content-type": "application/json" },
      agent: false as const,
    };
    const req = target.socketPath
      ? request({ ...options, socketPath: target.socketPath, path: target.path })
      : request(`${target.url}${target.path}`, options);
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(performance.now() - started));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const times: Record<string, number[]> = { direct: [], gateway: [], "gateway+forwarder": [] };
for (let round = 0; round < calls; round++) {
  times.direct?.push(await post({ url: base, path: "/v1/chat/completions" }));
  times.gateway?.push(await post({ socketPath: gateway.socketPath, path: "/v1/chat/completions" }));
  times["gateway+forwarder"]?.push(await post({ url: forwarded, path: "/chat/completions" }));
}
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
console.log(
  `calls per path: ${calls}; load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}`,
);
for (const [name, values] of Object.entries(times))
  console.log(
    `${name.padEnd(18)} median ${quantile(values, 0.5).toFixed(2)} ms   p95 ${quantile(values, 0.95).toFixed(2)} ms`,
  );
console.log(
  `metered calls: ${meter.usage.calls} (expected ${2 * calls}), tokens ${meter.usage.inputTokens + meter.usage.outputTokens}`,
);
forwarder.kill();
await gateway.close();
server.close();
