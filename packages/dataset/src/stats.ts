import type { IncidentCategory, Language } from "@distdebug/schema";
import { loadGold } from "./gold.js";
import type { Dataset } from "./types.js";

/** The shape of the benchmark's published dataset, to compare a dataset with. */
export const PAPER_SHAPE = {
  /** Share of reports that never name the causal method. */
  reportWithoutCausalMethod: 0.68,
  /** Share of reports without a usable in-project stack trace. */
  withoutUsableStackTrace: 0.63,
  /** Share of incidents whose gold has more than one block. */
  multiBlock: 0.46,
  /** Median gold block length in lines. */
  medianBlockLines: 5,
} as const;

/** What `distdebug dataset stats` prints: a dataset's shape beside {@link PAPER_SHAPE}. */
export interface DatasetStats {
  incidents: number;
  /** Incidents with gold labels: the blocks figures count only these. */
  labeled: number;
  systems: Record<string, number>;
  languages: Partial<Record<Language, number>>;
  categories: Partial<Record<IncidentCategory, number>>;
  /** Shares over all incidents, 0..1. */
  reportWithoutCausalMethod: number;
  withoutUsableStackTrace: number;
  /** Shares and counts over labeled incidents. */
  multiBlock: number;
  blocks: number;
  /** Gold blocks per labeled incident: how many incidents have 1, 2, 3... blocks. */
  blocksPerIncident: Record<string, number>;
  meanBlocksPerIncident: number;
  medianBlockLines: number;
  paper: typeof PAPER_SHAPE;
}

function increment<K extends string>(record: Partial<Record<K, number>>, key: K): void {
  record[key] = (record[key] ?? 0) + 1;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function share(count: number, total: number): number {
  return total === 0 ? 0 : count / total;
}

/**
 * The shape of a dataset from its files alone (no repository): systems, languages,
 * categories, clue shares, gold blocks per incident and the median block length.
 *
 * @example
 * ```ts
 * const stats = await datasetStats(await loadDataset("datasets/catalog"));
 * console.log(stats.medianBlockLines, stats.paper.medianBlockLines);
 * ```
 */
export async function datasetStats(dataset: Dataset): Promise<DatasetStats> {
  const systems: Record<string, number> = {};
  const languages: Partial<Record<Language, number>> = {};
  const categories: Partial<Record<IncidentCategory, number>> = {};
  const blocksPerIncident: Record<string, number> = {};
  const lengths: number[] = [];
  let noMethod = 0;
  let noTrace = 0;
  let labeled = 0;
  let multi = 0;
  for (const entry of dataset.incidents) {
    const { incident } = entry;
    increment(systems, incident.system);
    for (const language of incident.languages) increment(languages, language);
    increment(categories, incident.category);
    if (!incident.clues.reportNamesCausalMethod) noMethod += 1;
    if (!incident.clues.usableStackTrace) noTrace += 1;
    const gold = await loadGold(entry);
    if (!gold) continue;
    labeled += 1;
    if (gold.blocks.length > 1) multi += 1;
    increment(blocksPerIncident, String(gold.blocks.length));
    for (const block of gold.blocks) lengths.push(block.endLine - block.startLine + 1);
  }
  const total = dataset.incidents.length;
  return {
    incidents: total,
    labeled,
    systems,
    languages,
    categories,
    reportWithoutCausalMethod: share(noMethod, total),
    withoutUsableStackTrace: share(noTrace, total),
    multiBlock: share(multi, labeled),
    blocks: lengths.length,
    blocksPerIncident,
    meanBlocksPerIncident: labeled === 0 ? 0 : lengths.length / labeled,
    medianBlockLines: median(lengths),
    paper: PAPER_SHAPE,
  };
}
