import { type IncidentCategory, Language } from "@distdebug/schema";
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

/** Points (of 100) a catalog's clue and multi-block shares may differ from the paper's. */
export const SHAPE_TOLERANCE = 0.1;

/** The shape of the incidents of one language (an incident of two languages counts in both). */
export interface LanguageShape {
  incidents: number;
  labeled: number;
  reportWithoutCausalMethod: number;
  withoutUsableStackTrace: number;
  /** Over labeled incidents. */
  multiBlock: number;
  medianBlockLines: number;
}

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
  /** The same figures per language, for all seven (a language without incidents has zeros). */
  byLanguage: Partial<Record<Language, LanguageShape>>;
  /**
   * Whether each share is within {@link SHAPE_TOLERANCE} of the paper's (the catalog's target
   * in CATALOG.md).
   */
  withinPaperShape: {
    reportWithoutCausalMethod: boolean;
    withoutUsableStackTrace: boolean;
    multiBlock: boolean;
  };
  paper: typeof PAPER_SHAPE;
}

interface Tally {
  incidents: number;
  labeled: number;
  noMethod: number;
  noTrace: number;
  multi: number;
  lengths: number[];
}

function emptyTally(): Tally {
  return { incidents: 0, labeled: 0, noMethod: 0, noTrace: 0, multi: 0, lengths: [] };
}

function shapeOf(tally: Tally): LanguageShape {
  return {
    incidents: tally.incidents,
    labeled: tally.labeled,
    reportWithoutCausalMethod: share(tally.noMethod, tally.incidents),
    withoutUsableStackTrace: share(tally.noTrace, tally.incidents),
    multiBlock: share(tally.multi, tally.labeled),
    medianBlockLines: median(tally.lengths),
  };
}

function within(value: number, paper: number): boolean {
  return Math.abs(value - paper) <= SHAPE_TOLERANCE + 1e-9;
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
  const all = emptyTally();
  const perLanguage = new Map<Language, Tally>();
  for (const entry of dataset.incidents) {
    const { incident } = entry;
    increment(systems, incident.system);
    for (const language of incident.languages) increment(languages, language);
    increment(categories, incident.category);
    const tallies = [
      all,
      ...incident.languages.map((language) => languageTally(perLanguage, language)),
    ];
    const gold = await loadGold(entry);
    if (gold) increment(blocksPerIncident, String(gold.blocks.length));
    for (const tally of tallies) {
      tally.incidents += 1;
      if (!incident.clues.reportNamesCausalMethod) tally.noMethod += 1;
      if (!incident.clues.usableStackTrace) tally.noTrace += 1;
      if (!gold) continue;
      tally.labeled += 1;
      if (gold.blocks.length > 1) tally.multi += 1;
      for (const block of gold.blocks) tally.lengths.push(block.endLine - block.startLine + 1);
    }
  }
  const shape = shapeOf(all);
  const byLanguage: Partial<Record<Language, LanguageShape>> = {};
  for (const language of [...Language.options].sort())
    byLanguage[language] = shapeOf(perLanguage.get(language) ?? emptyTally());
  return {
    ...shape,
    systems,
    languages,
    categories,
    blocks: all.lengths.length,
    blocksPerIncident,
    meanBlocksPerIncident: all.labeled === 0 ? 0 : all.lengths.length / all.labeled,
    byLanguage,
    withinPaperShape: {
      reportWithoutCausalMethod: within(
        shape.reportWithoutCausalMethod,
        PAPER_SHAPE.reportWithoutCausalMethod,
      ),
      withoutUsableStackTrace: within(
        shape.withoutUsableStackTrace,
        PAPER_SHAPE.withoutUsableStackTrace,
      ),
      multiBlock: within(shape.multiBlock, PAPER_SHAPE.multiBlock),
    },
    paper: PAPER_SHAPE,
  };
}

function languageTally(perLanguage: Map<Language, Tally>, language: Language): Tally {
  let tally = perLanguage.get(language);
  if (!tally) {
    tally = emptyTally();
    perLanguage.set(language, tally);
  }
  return tally;
}
