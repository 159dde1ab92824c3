const marker = Symbol.for("distdebug.error");

/**
 * Stable error codes, as a list programs can check against (attempt.json's `error.code` is one
 * of them). Each names one kind of failure a caller may handle. The list is closed: a new code
 * is added here (with a line saying what it means) before any package throws it or writes it.
 */
export const ERROR_CODES = [
  /** A file does not have its format's shape. */
  "INVALID_FILE",
  "UNKNOWN_FORMAT",
  "UNSUPPORTED_FORMAT_VERSION",
  "FILE_NOT_FOUND",
  "FILE_TOO_LARGE",
  "NOT_A_FILE",
  "INVALID_CONFIG",
  "MISSING_ENV",
  "INVALID_ARGUMENT",
  "INVALID_DATASET",
  "WORKSPACE_LEAK",
  "WORKSPACE_ERROR",
  "CACHE_CORRUPT",
  "SANDBOX_UNAVAILABLE",
  "SANDBOX_ERROR",
  "RESULTS_CONFLICT",
  "AGENT_ERROR",
  "MODEL_ERROR",
  "ABORTED",
  /** A file lock is held by another process (or the wait for it timed out). */
  "LOCK_HELD",
  /** A submission archive cannot be read or written as a tar.gz. */
  "INVALID_ARCHIVE",
  /** A broken invariant inside the SDK: a bug to report, not a user mistake. */
  "INTERNAL",
  /** A model reply without the protocol's shape (no content or no usage). */
  "MALFORMED_REPLY",
  /** The upstream model API answered with a retryable HTTP status. */
  "UPSTREAM_STATUS",
  /** A command line the CLI cannot run (missing or bad option): exit code 2. */
  "USAGE",
  /** An attempt ended without the agent writing a diagnosis.json (attempt.json only). */
  "NO_DIAGNOSIS",
  /**
   * The agent left a link, FIFO, device, folder or oversized file where the harness reads
   * diagnosis.json or trajectory.json (attempt.json only).
   */
  "UNSAFE_AGENT_FILE",
  /** The attempt hit a limit: wall time, tokens, cost, disk or memory (attempt.json only). */
  "LIMIT_EXCEEDED",
  /**
   * Read from an attempt.json whose code is not in this list (written by hand or by a harness
   * this version does not know); the message is kept as it was.
   */
  "LEGACY",
] as const;

/** One of {@link ERROR_CODES}: the closed union of the SDK's error codes. */
export type DistDebugErrorCode = (typeof ERROR_CODES)[number];

/** Options of {@link DistDebugError}. */
export interface DistDebugErrorOptions<Data> {
  /** Stable machine-readable code, for example `INVALID_FILE`. */
  code: DistDebugErrorCode;
  /** One human sentence (or a few lines) that says what is wrong and what to do. */
  message: string;
  /** Structured details for programs (file, JSON paths, expected values). */
  data?: Data;
  /** The lower-level error that caused this one, if any. */
  cause?: unknown;
}

/**
 * The one error class of the SDK. Every package throws it with a stable `code` (no subclasses:
 * a new kind of failure is a new code in {@link DistDebugErrorCode}).
 *
 * @example
 * ```ts
 * try {
 *   parseDiagnosis(text, { source: "diagnosis.json" });
 * } catch (error) {
 *   if (DistDebugError.isInstance(error) && error.code === "INVALID_FILE") console.error(error.message);
 * }
 * ```
 */
export class DistDebugError<Data = Record<string, unknown>> extends Error {
  readonly code: DistDebugErrorCode;
  readonly data: Data | undefined;
  /** Brand read by {@link DistDebugError.isInstance}. */
  readonly [marker] = true;

  constructor(options: DistDebugErrorOptions<Data>) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DistDebugError";
    this.code = options.code;
    this.data = options.data;
  }

  /**
   * True for any DistDebugError, also one created by another copy of this package
   * (the check uses a global symbol, not `instanceof`).
   */
  static isInstance(error: unknown): error is DistDebugError<unknown> {
    return typeof error === "object" && error !== null && marker in error;
  }

  /**
   * True for a DistDebugError with the given code (also one created by another copy of this
   * package).
   *
   * @example
   * ```ts
   * if (DistDebugError.hasCode(error, "USAGE")) return 2;
   * ```
   */
  static hasCode(error: unknown, code: DistDebugErrorCode): error is DistDebugError<unknown> {
    return DistDebugError.isInstance(error) && error.code === code;
  }

  /** A plain JSON form: `{ name, code, message, data }`. */
  toJSON(): { name: string; code: string; message: string; data?: Data } {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      ...(this.data === undefined ? {} : { data: this.data }),
    };
  }
}
