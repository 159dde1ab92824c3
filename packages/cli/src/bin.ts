#!/usr/bin/env node

import { errorMessage } from "@distdebug/schema";
import { runCli } from "./cli.js";
import { processIO } from "./io.js";

const controller = new AbortController();
let signals = 0;
const onSignal = (name: NodeJS.Signals) => {
  signals += 1;
  if (signals > 1) process.exit(130);
  controller.abort(new Error(`received ${name}`));
};
process.on("SIGINT", () => onSignal("SIGINT"));
process.on("SIGTERM", () => onSignal("SIGTERM"));
// A reader that stops early (`distdebug dataset list x | head`) closes the pipe: stop quietly
// with the shell's usual status for a broken pipe instead of an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(141);
    throw error;
  });

runCli(process.argv.slice(2), processIO(controller.signal)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`distdebug: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
