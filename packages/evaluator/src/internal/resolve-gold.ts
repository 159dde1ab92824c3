import type { Gold, ScoreWarning } from "@distdebug/schema";
import { type FileStore, KEY_SCALE } from "./file-store.js";
import { atomsOfRange } from "./resolve-span.js";
import type { GoldSide } from "./score-spans.js";

/**
 * Resolves the gold blocks to atom keys and significant row keys. A block whose file is not in
 * the revision, or that resolves to no atom, is a warning (it can then never be reached).
 */
export async function resolveGold(
  store: FileStore,
  gold: Pick<Gold, "blocks">,
  warnings: ScoreWarning[],
): Promise<GoldSide[]> {
  const sides: GoldSide[] = [];
  for (const [index, block] of gold.blocks.entries()) {
    const resolution = await store.resolve(block.path);
    if (resolution.status !== "file") {
      warnings.push({
        code: resolution.status === "outside" ? "path-outside-repository" : "missing-file",
        message: `gold block ${index} (${block.path}): the file is not in the revision being scored`,
        goldBlock: index,
        path: block.path,
      });
      sides.push({ block, path: block.path, atoms: [], rows: [] });
      continue;
    }
    const file = resolution.file;
    const end = Math.min(block.endLine, file.index.lineCount);
    const { ids } =
      block.startLine <= end ? atomsOfRange(file.index, block.startLine, end) : { ids: [] };
    if (ids.length === 0)
      warnings.push({
        code: "no-atoms",
        message: `gold block ${index} (${block.path}:${block.startLine}-${block.endLine}) resolves to no atom`,
        goldBlock: index,
        path: file.path,
      });
    const base = file.number * KEY_SCALE;
    const rows: number[] = [];
    for (let line = block.startLine; line <= end; line++)
      if ((file.index.owner[line] as number) >= 0) rows.push(base + line);
    sides.push({ block, path: file.path, atoms: ids.map((id) => base + id), rows });
  }
  return sides;
}
