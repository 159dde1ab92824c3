/**
 * Makes the agent's workspace (the buggy tree as a fresh git repository with one neutral commit,
 * needles scrubbed, cached per revision) and checks a workspace for leaks.
 *
 * @packageDocumentation
 * @module @distdebug/workspace
 */
export {
  type CacheVariableDeprecatedEvent,
  type DefaultCacheDirOptions,
  defaultCacheDir,
} from "./cache-dir.js";
export type { GitEngine } from "./engine.js";
export type { WorkspaceEvent } from "./events.js";
export {
  blobObject,
  type CommitFields,
  commitObject,
  type GitObject,
  type GitSignature,
  tagObject,
  treeObjects,
} from "./git-objects.js";
export {
  type CheckLeakageOptions,
  checkLeakage,
  type LeakageFinding,
  type LeakageKind,
  type LeakageReport,
} from "./leakage-check.js";
export {
  compileNeedles,
  MIN_COMMIT_PREFIX,
  type NeedleMatch,
  type NeedleMatcher,
  REDACTION_TEXT,
  scrubNeedles,
} from "./needles.js";
export { type OpenRepositoryOptions, openRepository } from "./open-repository.js";
export {
  type Owner,
  type PrepareWorkspaceOptions,
  type PrepareWorkspaceResult,
  prepareWorkspace,
  type Replacement,
} from "./prepare-workspace.js";
export {
  type CommitInfo,
  type ReadFileAtCommitOptions,
  readCommit,
  readFileAtCommit,
} from "./read-file-at-commit.js";
export {
  type OpenRevisionFilesOptions,
  openRevisionFiles,
  type RevisionContents,
  type RevisionFiles,
} from "./revision-files.js";
export {
  type StandInCommit,
  type StandInOptions,
  standInForMissingBlobs,
} from "./stand-in-commit.js";
export type { WorkspaceCopyProof } from "./workspace-copy-proof.js";
export { type WriteBareRepositoryOptions, writeBareRepository } from "./write-repository.js";
