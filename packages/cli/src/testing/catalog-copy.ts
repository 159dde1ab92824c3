import { cp, rm } from "node:fs/promises";
import { join } from "node:path";
import { testdir } from "@distdebug/test-utils";
import { repoRoot } from "./spawn-cli.js";

/**
 * Copies the bundled catalog into a fresh temporary folder and deletes the gold.json of
 * `id`, so tests can show how a gold-less (recorded but not scored) incident is reported.
 * Returns the copy's folder.
 */
export async function catalogWithoutGold(id: string): Promise<string> {
  const dir = await testdir();
  await cp(join(repoRoot, "datasets/catalog"), dir, { recursive: true });
  await rm(join(dir, id, "gold.json"));
  return dir;
}
