import type { RunEvent } from "@distdebug/runner";
import type { CliIO } from "../io.js";
import { TERMINAL } from "./terminal-text.js";

function clock(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const two = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${two(m)}:${two(s)}`;
}

/**
 * Turns run events into output: a live one-line progress bar on a terminal (done/failed,
 * running, elapsed, ETA, tokens), plain lines otherwise, or JSON lines with `--json`.
 */
export function createRunProgress(io: CliIO, mode: "tty" | "plain" | "json") {
  const started = Date.now();
  let total = 0;
  let pending = 0;
  let finished = 0;
  let failed = 0;
  let infra = 0;
  let running = 0;
  let tokens = 0;
  let lastDraw = 0;
  const warned = new Set<string>();
  const warn = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    if (mode === "tty") io.stderr(TERMINAL.clearLine);
    io.stderr(`warning: ${message}\n`);
  };
  const draw = (force = false) => {
    if (mode !== "tty") return;
    const now = Date.now();
    if (!force && now - lastDraw < 100) return;
    lastDraw = now;
    const elapsed = now - started;
    const eta = finished > 0 ? (elapsed / finished) * (pending - finished) : undefined;
    const width = 24;
    const filled = pending === 0 ? width : Math.round((finished / pending) * width);
    const bar = `${"=".repeat(filled)}${" ".repeat(width - filled)}`;
    const line = `[${bar}] ${finished}/${pending} done · ${failed} failed · ${infra} infra · ${running} running · ${clock(elapsed)} elapsed${eta === undefined ? "" : ` · ETA ${clock(eta)}`} · ${tokens.toLocaleString("en-US")} tokens`;
    // A terminal that reports 0 columns (some CI pseudo-terminals) is taken as 80 wide.
    const columns = io.columns > 0 ? io.columns : 80;
    io.stderr(TERMINAL.clearLine);
    io.stderr(line.slice(0, Math.max(20, columns - 1)));
  };
  return {
    onEvent(event: RunEvent) {
      if (mode === "json") {
        io.stdout(`${JSON.stringify(event)}\n`);
        return;
      }
      switch (event.type) {
        case "run-start":
          total = event.attempts;
          pending = event.pending;
          if (mode === "plain")
            io.stderr(
              `run ${event.name}: ${event.incidents} incidents, ${total} attempts, ${event.pending} to run, results in ${event.outDir}\n`,
            );
          break;
        case "run-warn":
          warn(event.message);
          break;
        // Of the workspace's and the sandbox's events, only warnings are shown (once each).
        case "attempt-sandbox":
          if (event.event.type === "sandbox-warn") warn(event.event.message);
          break;
        case "attempt-start":
          running += 1;
          break;
        case "attempt-end": {
          running -= 1;
          finished += 1;
          const record = event.record;
          if (record.status === "agent-error" || record.status === "limit-exceeded") failed += 1;
          if (record.status === "infra-error") infra += 1;
          tokens += record.usage.inputTokens + record.usage.outputTokens;
          const metrics = record.metrics
            ? ` coverage ${(record.metrics.blockCoverage * 100).toFixed(1)} precision ${(record.metrics.blockPrecision * 100).toFixed(1)}`
            : "";
          const why = record.error ? ` (${record.error.message.split("\n")[0]})` : "";
          const line = `${event.incidentId} attempt ${event.attempt}: ${record.status}${metrics}${why} ${(record.durationMs / 1000).toFixed(1)}s`;
          if (mode === "plain") io.stderr(`${line}\n`);
          else if (record.status !== "succeeded") {
            io.stderr(TERMINAL.clearLine);
            io.stderr(`${line}\n`);
          }
          break;
        }
        case "run-end":
          draw(true);
          if (mode === "tty") io.stderr("\n");
          return;
        default:
          break;
      }
      draw();
    },
  };
}
