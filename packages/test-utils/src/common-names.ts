/**
 * Twenty common function and method names, as a blind agent would name them without paths
 * (the scoring attack of issue 26): the evaluator's tests and `bench/evaluator/blind.ts`.
 */
export const COMMON_FUNCTION_NAMES: readonly string[] = [
  "get",
  "set",
  "run",
  "close",
  "start",
  "stop",
  "init",
  "apply",
  "handle",
  "process",
  "update",
  "create",
  "delete",
  "read",
  "write",
  "send",
  "load",
  "reset",
  "build",
  "execute",
];
