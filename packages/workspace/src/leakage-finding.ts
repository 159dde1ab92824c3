/** What a leakage finding is about. */
export type LeakageKind =
  | "needle"
  | "fix-commit"
  | "fix-line"
  | "history"
  | "git-metadata"
  | "extra-object"
  | "pack-order"
  | "timestamp";

/** One leak: where (a path relative to the workspace) and what. */
export interface LeakageFinding {
  kind: LeakageKind;
  file: string;
  line?: number;
  detail: string;
}
