#!/usr/bin/env node
// The DistDebug gateway forwarder: runs inside the sandbox, listens on the sandbox's own
// loopback and pipes each connection to the runner's gateway socket, then runs the agent's
// program with OPENAI_BASE_URL / ANTHROPIC_BASE_URL pointing at it. Dependency-free.
// Usage: node forwarder.mjs <program> [args...]
import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";

const socketPath = process.env.DISTDEBUG_GATEWAY_SOCKET || "/run/distdebug/gateway.sock";
const argv = process.argv.slice(2);
if (argv.length === 0) {
  process.stderr.write("distdebug forwarder: no program to run\n");
  process.exit(2);
}

const server = createServer((client) => {
  const upstream = connect(socketPath);
  client.pipe(upstream);
  upstream.pipe(client);
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", end);
  upstream.on("error", end);
  client.on("close", end);
  upstream.on("close", end);
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    DISTDEBUG_MODEL_BASE_URL: base,
    OPENAI_BASE_URL: `${base}/v1`,
    ANTHROPIC_BASE_URL: base,
  };
  const child = spawn(argv[0], argv.slice(1), { stdio: "inherit", env });
  for (const name of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(name, () => child.kill(name));
  child.on("error", (error) => {
    process.stderr.write(`distdebug forwarder: cannot run ${argv[0]}: ${error.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => {
    server.close();
    process.exit(code ?? 128 + (signal === "SIGKILL" ? 9 : 15));
  });
});
