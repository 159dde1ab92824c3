import type { CliIO } from "../io.js";

/**
 * The CLI's own terminal controls. A write that is exactly one of them reaches the terminal as
 * it is; every other write is text, made inert by {@link inertText}.
 */
export const TERMINAL = {
  /** Back to the start of the line and clear it (the progress bar's redraw). */
  clearLine: "\r\u001b[2K",
  /** Back to the start of the line. */
  lineStart: "\r",
  /** Back to the start of the line and clear to its end. */
  clearToEnd: "\r\u001b[K",
  /** One line up (the live list of running attempts is redrawn from its top). */
  lineUp: "\u001b[1A",
  /** Clear from the cursor to the end of the screen. */
  clearBelow: "\u001b[J",
} as const;

const OWN_CONTROLS = new Set<string>(Object.values(TERMINAL));

/** Every C0 control but tab and newline, DEL, and every C1 control (ESC, CR and CSI included). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` with every control character a terminal would obey (C0 but tab and newline, DEL, C1:
 * escape sequences, carriage returns, backspaces) written as a visible `\uXXXX`. In JSON
 * output that is the character's own escape, so `--json` stays valid and means the same.
 *
 * @example
 * ```ts
 * inertText("a\u001b[2Kb"); // "a\\u001b[2Kb"
 * ```
 */
export function inertText(text: string): string {
  return text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * The one place where what the CLI writes meets the terminal: every write through the returned
 * IO is made inert ({@link inertText}) unless it is exactly one of the CLI's own
 * {@link TERMINAL} controls. Names, paths, agent stderr and error messages quoting them thus
 * cannot erase lines, move the cursor or recolor what follows, in human and `--json` output.
 */
export function terminalIO(io: CliIO): CliIO {
  const inert = (write: (text: string) => void) => (text: string) =>
    write(OWN_CONTROLS.has(text) ? text : inertText(text));
  return { ...io, stdout: inert(io.stdout), stderr: inert(io.stderr) };
}
