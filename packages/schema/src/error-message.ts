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

/**
 * The first line of {@link errorMessage} (a string is taken as the message), for one-line
 * displays: a progress line, a list of problems, a message that quotes another error.
 *
 * @example
 * ```ts
 * errorHeadline(new Error("x.json: invalid\n  at $.blocks[0]")); // "x.json: invalid"
 * errorHeadline("plain"); // "plain"
 * ```
 */
export function errorHeadline(error: unknown): string {
  return errorMessage(error).split("\n", 1)[0] ?? "";
}
