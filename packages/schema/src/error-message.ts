/**
 * The message of anything thrown: `error.message` for an `Error`, else `String(error)`.
 *
 * @example
 * ```ts
 * errorMessage(new Error("boom")); // "boom"
 * errorMessage("plain"); // "plain"
 * ```
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
