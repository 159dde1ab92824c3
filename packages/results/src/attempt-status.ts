import type { AttemptStatus } from "@distdebug/schema";

/**
 * The statuses of a finished attempt: `succeeded`, `agent-error` and `limit-exceeded` (the
 * agent's own outcome). A finished attempt is scored, counted in the summary, packaged, and
 * kept on resume; an `infra-error` or `interrupted` one is the harness's fault and is redone.
 *
 * @example
 * ```ts
 * if (FINISHED_STATUSES.has(record.status)) await scoreIt(record);
 * ```
 */
export const FINISHED_STATUSES: ReadonlySet<AttemptStatus> = new Set<AttemptStatus>([
  "succeeded",
  "agent-error",
  "limit-exceeded",
]);

/**
 * Is this the status of a finished attempt ({@link FINISHED_STATUSES})?
 *
 * @example
 * ```ts
 * isFinished("limit-exceeded"); // true
 * isFinished("infra-error"); // false: run it again
 * ```
 */
export function isFinished(status: AttemptStatus): boolean {
  return FINISHED_STATUSES.has(status);
}
