import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The datasets that ship with the repository: the offline example dataset first, then the catalog. */
export function bundledDatasets(): { name: "example" | "catalog"; dir: string }[] {
  const root = new URL("../../../", import.meta.url);
  const candidates = [
    { name: "example" as const, dir: fileURLToPath(new URL("examples/dataset", root)) },
    { name: "catalog" as const, dir: fileURLToPath(new URL("datasets/catalog", root)) },
  ];
  return candidates.filter((candidate) => existsSync(`${candidate.dir}/dataset.json`));
}
