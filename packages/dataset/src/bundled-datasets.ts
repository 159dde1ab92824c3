import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** A dataset that ships with the repository. */
export interface BundledDataset {
  /** `example`: the offline example dataset; `catalog`: the real-incident catalog. */
  name: "example" | "catalog";
  /** Absolute path of the dataset folder. */
  dir: string;
}

/**
 * The datasets that ship with the repository (`examples/dataset` and `datasets/catalog`),
 * the offline example dataset first, then the catalog. Only folders that hold a
 * `dataset.json` are listed, so an installed package without the repository finds none.
 *
 * @example
 * ```ts
 * const example = bundledDatasets().find((entry) => entry.name === "example");
 * if (example) console.log((await loadDataset(example.dir)).incidents.length);
 * ```
 */
export function bundledDatasets(): BundledDataset[] {
  const root = new URL("../../../", import.meta.url);
  const candidates: BundledDataset[] = [
    { name: "example", dir: fileURLToPath(new URL("examples/dataset", root)) },
    { name: "catalog", dir: fileURLToPath(new URL("datasets/catalog", root)) },
  ];
  return candidates.filter((candidate) => existsSync(`${candidate.dir}/dataset.json`));
}
