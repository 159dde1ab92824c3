import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DistDebugError } from "@distdebug/schema";

/** The repository root, with a trailing `/` (this file is packages/test-utils/src/repo-paths.ts). */
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * A path inside the repository, for tests that read its configs or scripts.
 *
 * @example
 * ```ts
 * const config = repoPath("configs/baseline/default.yaml");
 * ```
 */
export function repoPath(...parts: string[]): string {
  return join(repoRoot, ...parts);
}

/** A dataset folder of the checkout (the folders `bundledDatasets()` of @distdebug/dataset finds there). */
function bundled(name: "example" | "catalog", path: string): string {
  const dir = repoPath(path);
  if (!existsSync(join(dir, "dataset.json")))
    throw new DistDebugError({
      code: "FILE_NOT_FOUND",
      message: `the ${name} dataset (${path}) is not in this checkout; run the tests from a full clone of the repository`,
      data: { name },
    });
  return dir;
}

/** The folder of the offline example dataset (`examples/dataset`). */
export function exampleDatasetDir(): string {
  return bundled("example", "examples/dataset");
}

/** The folder of the real-incident catalog (`datasets/catalog`). */
export function catalogDatasetDir(): string {
  return bundled("catalog", "datasets/catalog");
}
