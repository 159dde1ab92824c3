/**
 * What `prepareWorkspace` proved about a workspace it copied from the cache: the digest of the
 * copy's entries and contents, computed from the very bytes it wrote, which equals the digest
 * recorded when the base was built. `checkLeakage` reuses a verdict recorded beside the base
 * for exactly this digest (and the same check options), so every copy of a base is checked
 * once; a base changed after its verdict yields another digest, and is checked again.
 */
export interface WorkspaceCopyProof {
  /** The copy (absolute). The proof holds for this folder only. */
  dir: string;
  /** The cached base it was copied from (verdicts are kept beside it). */
  baseDir: string;
  /** SHA-256 over every entry's kind, mode, size, path, link target and contents. */
  contentDigest: string;
}
