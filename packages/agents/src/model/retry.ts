import { DistDebugError } from "@distdebug/schema";

/** How {@link withRetries} waits between tries. */
export interface RetryOptions {
  /** Retries after the first try. Default 5. */
  maxRetries?: number;
  /** Delay before the first retry in milliseconds; doubles each time (with jitter). Default 1000. */
  initialDelayMs?: number;
  /** Longest delay between tries. Default 30,000 ms. */
  maxDelayMs?: number;
  signal?: AbortSignal;
  /** Called before each retry with the failure and the delay chosen. */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

/** A failure that may succeed when tried again, with the server's `retry-after` if it gave one. */
export interface RetryVerdict {
  retryable: boolean;
  /** The server's requested delay in milliseconds (`retry-after`, `retry-after-ms`). */
  retryAfterMs?: number;
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after");
  if (raw === null) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Is an HTTP status worth retrying (429, 408, 409 and every 5xx)? */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status === 409 || status >= 500;
}

/**
 * Error codes of a connection that failed before the request was sent (refused, no such
 * host, no route, a certificate refused): the provider never saw the call.
 */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/**
 * Did a request fail before it was sent, so that the provider never saw it (and bills
 * nothing)? Reads the `code` along the error's `cause` chain (fetch and the SDKs wrap the
 * socket's error). Any other failure (a timeout, a connection lost after sending) may have
 * reached the provider: such a call is not retried and is metered at its worst case.
 *
 * @example
 * ```ts
 * neverSent(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } })); // true
 * ```
 */
export function neverSent(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && NOT_SENT_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortError(): DistDebugError {
  return new DistDebugError({ code: "ABORTED", message: "the model call was aborted" });
}

/**
 * Runs `attempt` until it succeeds, the failure is not retryable, or `maxRetries` retries
 * (default 5) are used. Waits with exponential backoff and full jitter (default first delay
 * 1 s, at most 30 s), or the server's `retry-after` when it names one (capped the same way).
 *
 * @example
 * ```ts
 * const reply = await withRetries(() => fetch(url), (error) => ({ retryable: true }), { maxRetries: 3 });
 * ```
 */
export async function withRetries<T>(
  attempt: (tryNumber: number) => Promise<T>,
  classify: (error: unknown) => RetryVerdict,
  options: RetryOptions = {},
): Promise<T> {
  const maxRetries = options.maxRetries ?? 5;
  const initialDelayMs = options.initialDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  for (let tryNumber = 0; ; tryNumber++) {
    try {
      return await attempt(tryNumber);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const verdict = classify(error);
      if (!verdict.retryable || tryNumber >= maxRetries) throw error;
      const backoff = Math.random() * Math.min(maxDelayMs, initialDelayMs * 2 ** tryNumber);
      const delayMs = Math.min(maxDelayMs, verdict.retryAfterMs ?? backoff);
      options.onRetry?.({ attempt: tryNumber + 1, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }
}
