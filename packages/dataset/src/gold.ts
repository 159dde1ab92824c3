import { join } from "node:path";
import { type Gold, parseGold, readFileChecked } from "@distdebug/schema";
import type { DatasetIncident } from "./types.js";

/**
 * Reads an incident's gold labels (`gold.json`): the causal blocks, the fix commit and the
 * leakage needles. Kept apart from the incident and its task view on purpose: only the
 * harness (scoring, leakage check) calls this. Returns `undefined` for an incident without
 * gold labels (it cannot be scored).
 *
 * @example
 * ```ts
 * const gold = await loadGold(dataset.incidents[0]!);
 * if (gold) console.log(gold.blocks.length, gold.needles);
 * ```
 */
export async function loadGold(entry: DatasetIncident): Promise<Gold | undefined> {
  if (!entry.scorable) return undefined;
  const path = join(entry.dir, "gold.json");
  return parseGold(await readFileChecked(path), { source: path });
}
