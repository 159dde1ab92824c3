import Anthropic from "@anthropic-ai/sdk";
import type { CallTokens } from "@distdebug/schema";
import { DistDebugError } from "@distdebug/schema";
import OpenAI from "openai";
import type { CompleteOptions, CreateModelClientOptions, ModelReply } from "./model-types.js";
import {
  isRetryableStatus,
  neverSent,
  type RetryVerdict,
  retryAfterMs,
  withRetries,
} from "./retry.js";

/** The shape both SDKs' errors share (Stainless clients). */
interface SdkErrorLike {
  name?: string;
  status?: number;
  headers?: { get(name: string): string | null };
  message?: string;
}

/** A reply body that does not have the protocol's shape (code `MALFORMED_REPLY`). Never retried. */
export function malformedReply(problem: string): DistDebugError {
  return new DistDebugError({
    code: "MALFORMED_REPLY",
    message: `${problem}; the endpoint does not speak the configured protocol: check model.provider and model.baseUrl`,
  });
}

function sdkError(error: unknown): SdkErrorLike | undefined {
  return typeof error === "object" && error !== null ? (error as SdkErrorLike) : undefined;
}

const isTimeout = (error: unknown) =>
  error instanceof OpenAI.APIConnectionTimeoutError ||
  error instanceof Anthropic.APIConnectionTimeoutError;
const isConnection = (error: unknown) =>
  error instanceof OpenAI.APIConnectionError || error instanceof Anthropic.APIConnectionError;
const isUserAbort = (error: unknown) =>
  error instanceof OpenAI.APIUserAbortError || error instanceof Anthropic.APIUserAbortError;

/**
 * Retries a 429, 408, 409 or 5xx answer and a connection that failed before the request was
 * sent. A timeout or a connection lost after sending is not retried: the provider may be
 * generating (and billing) the reply still, and each retry would be another generation.
 */
function classify(error: unknown): RetryVerdict {
  if (DistDebugError.hasCode(error, "MALFORMED_REPLY") || error instanceof SyntaxError)
    return { retryable: false };
  if (isUserAbort(error) || isTimeout(error)) return { retryable: false };
  if (isConnection(error)) return { retryable: neverSent(error) };
  const e = sdkError(error);
  if (typeof e?.status === "number") {
    const after = retryAfterMs(e.headers);
    return {
      retryable: isRetryableStatus(e.status),
      ...(after === undefined ? {} : { retryAfterMs: after }),
    };
  }
  return { retryable: false };
}

function describe(error: unknown, timeoutMs: number): string {
  if (DistDebugError.hasCode(error, "MALFORMED_REPLY")) return `malformed reply: ${error.message}`;
  if (error instanceof SyntaxError)
    return `malformed reply: the body is not JSON (${error.message})`;
  if (isTimeout(error)) return `no reply within ${timeoutMs} ms`;
  const e = sdkError(error);
  if (typeof e?.status === "number") return `HTTP ${e.status}: ${(e.message ?? "").slice(0, 300)}`;
  return e?.message ?? String(error);
}

/**
 * Did the provider perhaps generate (and bill) a reply the client never read: a timeout, an
 * abort or a connection lost after sending, or a reply that could not be read? Not for an
 * error status (the provider bills none) or a connection that never opened.
 */
function abandoned(error: unknown): boolean {
  if (neverSent(error)) return false;
  return typeof sdkError(error)?.status !== "number";
}

/** What one protocol adapter returns for one try. */
export interface RawReply {
  content: string;
  tokens: CallTokens;
  model?: string;
}

/**
 * Runs one protocol call with the config's retries and timeout and turns failures into
 * `MODEL_ERROR` (or `ABORTED`) with a one-line message naming the model.
 */
export async function callModel(
  options: CreateModelClientOptions,
  callOptions: CompleteOptions,
  once: (request: { signal?: AbortSignal; timeout: number }) => Promise<RawReply>,
): Promise<ModelReply> {
  const started = Date.now();
  const timeoutMs = callOptions.timeoutMs ?? options.model.timeoutMs;
  let retries = 0;
  try {
    const reply = await withRetries(
      () =>
        once({ ...(callOptions.signal ? { signal: callOptions.signal } : {}), timeout: timeoutMs }),
      classify,
      {
        maxRetries: options.model.maxRetries,
        ...(options.retryInitialDelayMs === undefined
          ? {}
          : { initialDelayMs: options.retryInitialDelayMs }),
        ...(options.retryMaxDelayMs === undefined ? {} : { maxDelayMs: options.retryMaxDelayMs }),
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        onRetry: (info) => {
          retries = info.attempt;
          options.onRetry?.({
            attempt: info.attempt,
            delayMs: info.delayMs,
            message: describe(info.error, timeoutMs),
          });
        },
      },
    );
    return {
      content: reply.content,
      tokens: reply.tokens,
      model: reply.model ?? options.model.name,
      durationMs: Date.now() - started,
      retries,
    };
  } catch (error) {
    // A sleeping retry that was aborted sent nothing new; the failure before it is the call's.
    const sleeping = DistDebugError.isInstance(error) && error.code === "ABORTED";
    const data = { abandoned: !sleeping && abandoned(error) };
    if (callOptions.signal?.aborted || sleeping)
      throw new DistDebugError({
        code: "ABORTED",
        message: "the model call was aborted",
        data,
        cause: error,
      });
    throw new DistDebugError({
      code: "MODEL_ERROR",
      message: `the ${options.model.provider} model ${options.model.name} failed after ${retries + 1} tries: ${describe(error, timeoutMs)}`,
      data: {
        provider: options.model.provider,
        model: options.model.name,
        tries: retries + 1,
        ...data,
      },
      cause: error,
    });
  }
}
