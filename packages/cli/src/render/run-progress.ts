import type { AttemptPhase, RunEvent } from "@distdebug/runner";
import { errorHeadline } from "@distdebug/schema";
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

/** Options of {@link createRunProgress}. */
export interface RunProgressOptions {
  /** The clock (tests pass their own). Default `Date.now`. */
  now?: () => number;
  /**
   * Every this many milliseconds: outside a terminal a heartbeat line (the running attempts
   * and their phase), in one a redraw of the live list. 0: never. Default 10,000.
   */
  heartbeatMs?: number;
}

/** An attempt in progress: its phase and since when. */
interface RunningAttempt {
  incidentId: string;
  attempt: number;
  phase: AttemptPhase | "starting";
  startedAt: number;
}

/** Running attempts listed live in a terminal; more are counted on one line. */
const LIVE_ROWS = 8;

/** The line of a finished attempt: incident, attempt, status, metrics, why, duration. */
function resultLine(event: Extract<RunEvent, { type: "attempt-end" }>): string {
  const { record, metrics: scored } = event;
  const metrics = scored
    ? ` coverage ${(scored.blockCoverage * 100).toFixed(1)} precision ${(scored.blockPrecision * 100).toFixed(1)}`
    : "";
  const why = record.error ? ` (${errorHeadline(record.error.message)})` : "";
  return `${event.incidentId} attempt ${event.attempt}: ${record.status}${metrics}${why} ${(record.durationMs / 1000).toFixed(1)}s`;
}

/**
 * Turns run events into output. On a terminal (`tty`): a line per finished attempt (incident,
 * attempt, status, coverage and precision, duration), under a live block listing the running
 * attempts with their phase (workspace, leakage, sandbox, agent, scoring) and time, and a
 * progress bar (done/failed, running, elapsed, ETA, tokens). Outside one (`plain`): a line per
 * attempt and phase, a line per finished attempt, and a heartbeat line every `heartbeatMs`
 * naming the running attempts and their phase. With `--json`: the events as JSON lines,
 * unchanged.
 */
export function createRunProgress(
  io: CliIO,
  mode: "tty" | "plain" | "json",
  options: RunProgressOptions = {},
) {
  const now = options.now ?? Date.now;
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const started = now();
  const counts = { pending: 0, finished: 0, failed: 0, infra: 0, tokens: 0 };
  const running = new Map<string, RunningAttempt>();
  let drawnLines = 0;
  let lastDraw = 0;
  let timer: NodeJS.Timeout | undefined;
  const warned = new Set<string>();

  const key = (incidentId: string, attempt: number) => `${incidentId}\u0000${attempt}`;

  const summaryLine = (at: number) => {
    const elapsed = at - started;
    const { pending, finished } = counts;
    const eta = finished > 0 ? (elapsed / finished) * (pending - finished) : undefined;
    const width = 24;
    const filled = pending === 0 ? width : Math.round((finished / pending) * width);
    const bar = `${"=".repeat(filled)}${" ".repeat(width - filled)}`;
    return `[${bar}] ${finished}/${pending} done · ${counts.failed} failed · ${counts.infra} infra · ${running.size} running · ${clock(elapsed)} elapsed${eta === undefined ? "" : ` · ETA ${clock(eta)}`} · ${counts.tokens.toLocaleString("en-US")} tokens`;
  };

  const runningLines = (at: number): string[] => {
    const list = [...running.values()];
    const lines = list
      .slice(0, LIVE_ROWS)
      .map(
        (entry) =>
          `  ${entry.incidentId} attempt ${entry.attempt}  ${entry.phase.padEnd(9)} ${clock(at - entry.startedAt)}`,
      );
    if (list.length > LIVE_ROWS) lines.push(`  ... and ${list.length - LIVE_ROWS} more running`);
    return lines;
  };

  /** Clears the live block (the running list and the bar) a terminal shows. */
  const erase = () => {
    io.stderr(TERMINAL.clearLine);
    for (let line = 1; line < drawnLines; line++) io.stderr(TERMINAL.lineUp);
    if (drawnLines > 1) io.stderr(TERMINAL.clearBelow);
    drawnLines = 0;
  };

  const draw = (force = false) => {
    if (mode !== "tty") return;
    const at = now();
    if (!force && at - lastDraw < 100) return;
    lastDraw = at;
    // A terminal that reports 0 columns (some CI pseudo-terminals) is taken as 80 wide.
    const columns = io.columns > 0 ? io.columns : 80;
    const fit = (line: string) => line.slice(0, Math.max(20, columns - 1));
    erase();
    const lines = [...runningLines(at), summaryLine(at)];
    for (const line of lines.slice(0, -1)) io.stderr(`${fit(line)}\n`);
    io.stderr(fit(lines.at(-1) ?? ""));
    drawnLines = lines.length;
  };

  /** A line that stays: above the live block on a terminal, as is otherwise. */
  const print = (line: string) => {
    if (mode === "tty") erase();
    io.stderr(`${line}\n`);
    if (mode === "tty") draw(true);
  };

  const heartbeat = () => {
    if (mode === "tty") return draw(true);
    if (mode !== "plain" || running.size === 0) return;
    const at = now();
    const list = [...running.values()]
      .map(
        (entry) =>
          `${entry.incidentId} attempt ${entry.attempt} ${entry.phase} ${clock(at - entry.startedAt)}`,
      )
      .join(", ");
    io.stderr(
      `[${clock(at - started)}] ${counts.finished}/${counts.pending} done, ${running.size} running: ${list}\n`,
    );
  };

  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };

  const warn = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    print(`warning: ${message}`);
  };

  const onStart = (event: Extract<RunEvent, { type: "run-start" }>) => {
    counts.pending = event.pending;
    if (mode === "plain")
      io.stderr(
        `run ${event.name}: ${event.incidents} incidents, ${event.attempts} attempts, ${event.pending} to run, results in ${event.outDir}\n`,
      );
    if (heartbeatMs > 0 && !timer) timer = setInterval(heartbeat, heartbeatMs).unref();
  };

  const onEnd = (event: Extract<RunEvent, { type: "attempt-end" }>) => {
    running.delete(key(event.incidentId, event.attempt));
    counts.finished += 1;
    const record = event.record;
    if (record.status === "agent-error" || record.status === "limit-exceeded") counts.failed += 1;
    if (record.status === "infra-error") counts.infra += 1;
    counts.tokens += record.usage.inputTokens + record.usage.outputTokens;
    print(resultLine(event));
  };

  return {
    /** Renders one event. */
    onEvent(event: RunEvent) {
      if (mode === "json") {
        io.stdout(`${JSON.stringify(event)}\n`);
        return;
      }
      switch (event.type) {
        case "run-start":
          onStart(event);
          break;
        case "run-warn":
          warn(event.message);
          return;
        // Of the workspace's and the sandbox's events, only warnings are shown (once each).
        case "attempt-sandbox":
          if (event.event.type === "sandbox-warn") return warn(event.event.message);
          break;
        case "attempt-start":
          running.set(key(event.incidentId, event.attempt), {
            incidentId: event.incidentId,
            attempt: event.attempt,
            phase: "starting",
            startedAt: now(),
          });
          break;
        case "attempt-phase": {
          const entry = running.get(key(event.incidentId, event.attempt));
          if (entry) entry.phase = event.phase;
          if (mode === "plain")
            io.stderr(`${event.incidentId} attempt ${event.attempt}: ${event.phase}\n`);
          draw(true);
          return;
        }
        case "attempt-end":
          onEnd(event);
          return;
        case "run-end":
          stop();
          if (mode === "tty") {
            erase();
            io.stderr(`${summaryLine(now())}\n`);
          }
          return;
        default:
          break;
      }
      draw();
    },
    /** Writes a heartbeat line (outside a terminal) or redraws the live list (in one). */
    heartbeat,
    /** Stops the heartbeat timer (the run's end does it too). */
    stop,
  };
}
