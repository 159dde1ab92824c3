import type { RunEvent } from "@distdebug/runner";
import type { Attempt } from "@distdebug/schema";
import { describe, expect, it } from "vitest";
import { captureIO } from "../testing/capture-io.js";
import { createRunProgress } from "./run-progress.js";
import { terminalIO } from "./terminal-text.js";

/**
 * A fake terminal: applies what the renderer writes (text, newlines, carriage return, clear
 * line, one line up, clear below) to a screen of lines, as a VT100 would.
 */
function fakeTerminal() {
  const screen: string[] = [""];
  let row = 0;
  let col = 0;
  const put = (char: string) => {
    const line = screen[row] ?? "";
    screen[row] = line.slice(0, col).padEnd(col) + char + line.slice(col + 1);
    col += 1;
  };
  const write = (text: string) => {
    const tokens = text.match(/\u001b\[[0-9]*[A-Za-z]|[\s\S]/g) ?? [];
    for (const token of tokens) {
      if (token === "\n") {
        row += 1;
        col = 0;
        if (screen.length <= row) screen.push("");
      } else if (token === "\r") col = 0;
      else if (token === "\u001b[2K") screen[row] = "";
      else if (token === "\u001b[1A") row = Math.max(0, row - 1);
      else if (token === "\u001b[J") {
        screen[row] = (screen[row] ?? "").slice(0, col);
        screen.length = row + 1;
      } else if (token.startsWith("\u001b"))
        throw new Error(`unexpected control ${JSON.stringify(token)}`);
      else put(token);
    }
  };
  return { write, screen: () => screen.map((line) => line.trimEnd()).filter(Boolean) };
}

const record = (status: Attempt["status"]): Attempt =>
  ({
    status,
    durationMs: 2500,
    usage: { inputTokens: 100, outputTokens: 20, cachedTokens: 0, calls: 1, costUsd: null },
  }) as unknown as Attempt;

/** An attempt's end as the run reports it: its record, and the metrics it scored. */
const attemptEnd = (
  incidentId: string,
  attempt: number,
  status: Attempt["status"],
  coverage: number,
) =>
  ({
    type: "attempt-end",
    incidentId,
    attempt,
    record: record(status),
    metrics: {
      blockCoverage: coverage,
      blockPrecision: 1,
      fileCoverage: 1,
      linePrecision: 1,
      repositoryShare: 0,
      reachedAll: coverage === 1,
    },
  }) satisfies RunEvent;

/** A run of three attempts, the first finished while two are in their agent and scoring phases. */
const EVENTS: RunEvent[] = [
  { type: "run-start", name: "demo", outDir: "/r", incidents: 2, attempts: 3, pending: 3 },
  { type: "attempt-start", incidentId: "zklite-142", attempt: 1 },
  { type: "attempt-phase", incidentId: "zklite-142", attempt: 1, phase: "workspace" },
  { type: "attempt-start", incidentId: "leasekv-77", attempt: 1 },
  { type: "attempt-phase", incidentId: "leasekv-77", attempt: 1, phase: "workspace" },
  { type: "attempt-phase", incidentId: "zklite-142", attempt: 1, phase: "agent" },
  { type: "attempt-phase", incidentId: "zklite-142", attempt: 1, phase: "scoring" },
  attemptEnd("zklite-142", 1, "succeeded", 0.5),
  { type: "attempt-start", incidentId: "zklite-142", attempt: 2 },
  { type: "attempt-phase", incidentId: "zklite-142", attempt: 2, phase: "agent" },
  { type: "attempt-phase", incidentId: "leasekv-77", attempt: 1, phase: "scoring" },
];

function clock() {
  let at = 1_000_000;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

describe("run progress outside a terminal", () => {
  it("prints a line per attempt and phase, a result line per finished attempt, and heartbeats", () => {
    const time = clock();
    const io = captureIO();
    const progress = createRunProgress(io, "plain", { now: time.now, heartbeatMs: 0 });
    for (const event of EVENTS) {
      time.advance(1000);
      progress.onEvent(event);
    }
    time.advance(10_000);
    progress.heartbeat();
    const lines = io.err().trimEnd().split("\n");
    expect(lines).toContain("zklite-142 attempt 1: workspace");
    expect(lines).toContain("leasekv-77 attempt 1: workspace");
    expect(lines).toContain("zklite-142 attempt 1: scoring");
    expect(lines).toContain("zklite-142 attempt 1: succeeded coverage 50.0 precision 100.0 2.5s");
    expect(lines.at(-1)).toBe(
      "[00:21] 1/3 done, 2 running: leasekv-77 attempt 1 scoring 00:17, zklite-142 attempt 2 agent 00:12",
    );
  });

  it("writes no heartbeat when nothing runs", () => {
    const io = captureIO();
    const progress = createRunProgress(io, "plain", { heartbeatMs: 0 });
    progress.onEvent(EVENTS[0]!);
    const before = io.err();
    progress.heartbeat();
    expect(io.err()).toBe(before);
  });
});

describe("run progress in a terminal (a fake TTY)", () => {
  it("keeps result lines, and redraws a live list of running attempts with their phase above the bar", () => {
    const time = clock();
    const terminal = fakeTerminal();
    const io = terminalIO(
      captureIO({ isTTY: true, columns: 120, stderr: terminal.write, stdout: terminal.write }),
    );
    const progress = createRunProgress(io, "tty", { now: time.now, heartbeatMs: 0 });
    for (const event of EVENTS) {
      time.advance(1000);
      progress.onEvent(event);
    }
    time.advance(5000);
    progress.heartbeat();
    const screen = terminal.screen();
    expect(screen[0]).toBe("zklite-142 attempt 1: succeeded coverage 50.0 precision 100.0 2.5s");
    expect(screen[1]).toMatch(/^ {2}leasekv-77 attempt 1 {2}scoring +00:12$/);
    expect(screen[2]).toMatch(/^ {2}zklite-142 attempt 2 {2}agent +00:07$/);
    expect(screen[3]).toMatch(
      /^\[=+ +\] 1\/3 done · 0 failed · 0 infra · 2 running · 00:16 elapsed/,
    );
    expect(screen).toHaveLength(4);

    progress.onEvent(attemptEnd("leasekv-77", 1, "agent-error", 0));
    progress.onEvent(attemptEnd("zklite-142", 2, "succeeded", 1));
    progress.onEvent({
      type: "run-end",
      done: 3,
      skipped: 0,
      failed: 1,
      infraErrors: 0,
      interrupted: false,
      durationMs: 1,
    });
    const end = terminal.screen();
    expect(end.slice(0, 3)).toEqual([
      "zklite-142 attempt 1: succeeded coverage 50.0 precision 100.0 2.5s",
      "leasekv-77 attempt 1: agent-error coverage 0.0 precision 100.0 2.5s",
      "zklite-142 attempt 2: succeeded coverage 100.0 precision 100.0 2.5s",
    ]);
    expect(end[3]).toMatch(/^\[=+\] 3\/3 done · 1 failed · 0 infra · 0 running/);
    expect(end).toHaveLength(4);
  });
});

describe("run progress with --json", () => {
  it("writes each event as one JSON line, unchanged", () => {
    const io = captureIO();
    const progress = createRunProgress(io, "json", { heartbeatMs: 0 });
    for (const event of EVENTS) progress.onEvent(event);
    progress.heartbeat();
    expect(
      io
        .out()
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual(EVENTS);
    expect(io.err()).toBe("");
  });
});
