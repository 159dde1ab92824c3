import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundledDatasets } from "@distdebug/dataset";
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

function bundled(name: "example" | "catalog"): string {
  const found = bundledDatasets().find((entry) => entry.name === name);
  if (!found)
    throw new DistDebugError({
      code: "FILE_NOT_FOUND",
      message: `the ${name} dataset is not in this checkout; run the tests from a full clone of the repository`,
      data: { name },
    });
  return found.dir;
}

/** The folder of the offline example dataset (`examples/dataset`). */
export function exampleDatasetDir(): string {
  return bundled("example");
}

/** The folder of the real-incident catalog (`datasets/catalog`). */
export function catalogDatasetDir(): string {
  return bundled("catalog");
}
