/** Where a command writes and what it knows of its terminal. Tests pass their own. */
export interface CliIO {
  /** Writes to standard output as is. */
  stdout: (text: string) => void;
  /** Writes to standard error as is. */
  stderr: (text: string) => void;
  /** Is standard error a terminal (progress bars) ? */
  isTTY: boolean;
  /** Terminal width in columns. */
  columns: number;
  /** The environment the command sees. */
  env: Record<string, string | undefined>;
  /** The working directory paths are resolved against. */
  cwd: string;
  /** Aborted on the first SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/** The IO of the real process. */
export function processIO(signal?: AbortSignal): CliIO {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTTY: Boolean(process.stderr.isTTY),
    columns: process.stderr.columns ?? 80,
    env: process.env,
    cwd: process.cwd(),
    ...(signal ? { signal } : {}),
  };
}
