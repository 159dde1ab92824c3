import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** A dataset that ships with the repository. */
export interface BundledDataset {
  /** `example`: the offline example dataset; `catalog`: the real-incident catalog. */
  name: "example" | "catalog";
  /** Absolute path of the dataset folder. */
  dir: string;
}

/**
 * Where a bundled dataset may be: inside the installed package first (`pnpm build` copies both
 * datasets to `dist/datasets/`), then in the repository checkout this file belongs to (from
 * `src/` in the monorepo, where nothing is copied).
 */
function candidates(name: BundledDataset["name"], repositoryPath: string): string[] {
  return [
    fileURLToPath(new URL(`./datasets/${name}`, import.meta.url)),
    fileURLToPath(new URL(repositoryPath, new URL("../../../", import.meta.url))),
  ];
}

/**
 * The datasets that ship with the package (the offline example dataset and the real-incident
 * catalog, copied into `dist/datasets/` by the build) or, when run from the repository's
 * sources, its `examples/dataset` and `datasets/catalog`: the example dataset first, then the
 * catalog. Only folders that hold a `dataset.json` are listed.
 *
 * @example
 * ```ts
 * const example = bundledDatasets().find((entry) => entry.name === "example");
 * if (example) console.log((await loadDataset(example.dir)).incidents.length);
 * ```
 */
export function bundledDatasets(): BundledDataset[] {
  const wanted = [
    { name: "example", path: "examples/dataset" },
    { name: "catalog", path: "datasets/catalog" },
  ] as const;
  return wanted.flatMap(({ name, path }) => {
    const dir = candidates(name, path).find((folder) => existsSync(join(folder, "dataset.json")));
    return dir ? [{ name, dir }] : [];
  });
}
