import type { CliIO } from "../io.js";
import { repoRoot } from "./spawn-cli.js";

/** A {@link CliIO} that records what a command writes, for tests. */
export interface CapturedIO extends CliIO {
  out: () => string;
  err: () => string;
}

/** Builds a capturing IO rooted at `cwd` (default: the repository root). */
export function captureIO(options: Partial<CliIO> = {}): CapturedIO {
  let out = "";
  let err = "";
  return {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    isTTY: false,
    columns: 100,
    env: {},
    cwd: repoRoot,
    ...options,
    out: () => out,
    err: () => err,
  };
}
