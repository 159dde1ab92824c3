import type { LimitHit } from "@distdebug/schema";
/**
 * Events a sandbox emits through `onEvent`. Named `<noun>-<verb>`.
 *
 * - `sandbox-warn`: something the caller must surface, such as the unsafe `no-sandbox` backend.
 * - `command-start`: a command began; `pidNamespace` (bubblewrap only) lets a caller check
 *   from the host that nothing of it survives.
 * - `command-end`: a command finished, with its summary.
 *
 * @example
 * ```ts
 * const sandbox = await createSandbox({ workspace, onEvent: (event) => {
 *   if (event.type === "sandbox-warn") console.error(event.message);
 * } });
 * ```
 */
export type SandboxEvent =
  | { type: "sandbox-warn"; backend: SandboxBackendName; message: string }
  | {
      type: "command-start";
      commandId: number;
      command: string | readonly string[];
      pid?: number | undefined;
      pidNamespace?: number | undefined;
    }
  | {
      type: "command-end";
      commandId: number;
      exitCode: number | null;
      signal: string | null;
      durationMs: number;
      timedOut: boolean;
      truncated: boolean;
      limitHit?: LimitHit | undefined;
    };

/** The backends: `bubblewrap`, or the unsafe development-only `no-sandbox`. */
export type SandboxBackendName = "bubblewrap" | "no-sandbox";

/** Which limit stopped a command (`LimitHit` of @distdebug/schema, one union for commands and attempts). */
export type { LimitHit } from "@distdebug/schema";
