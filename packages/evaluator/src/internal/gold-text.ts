import type { Gold } from "@distdebug/schema";
import type { ReadFile } from "../directory-reader.js";
import type { FileStore } from "./file-store.js";
import { type GoldText, normalizeRow } from "./search-path.js";
import { decodeSource, splitLines } from "./text.js";

/**
 * The gold blocks' significant rows (the evaluator's: rows owned by an atom) and their files'
 * significant rows, normalized, for the search path. A block whose file is missing has none.
 */
export async function goldTexts(
  store: FileStore,
  readFile: ReadFile,
  gold: Pick<Gold, "blocks">,
): Promise<GoldText[]> {
  const files = new Map<string, { lines: string[]; rows: Set<string>; owner: Int32Array }>();
  const texts: GoldText[] = [];
  for (const block of gold.blocks) {
    const resolution = await store.resolve(block.path);
    const content = resolution.status === "file" ? await readFile(resolution.file.path) : undefined;
    if (resolution.status !== "file" || content === undefined) {
      texts.push({ path: null, rows: [], fileRows: new Set() });
      continue;
    }
    const { path, index } = resolution.file;
    let file = files.get(path);
    if (!file) {
      const lines = splitLines(decodeSource(content).text);
      const rows = new Set<string>();
      lines.forEach((line, i) => {
        if ((index.owner[i + 1] ?? -1) >= 0) rows.add(normalizeRow(line));
      });
      file = { lines, rows, owner: index.owner };
      files.set(path, file);
    }
    const rows: string[] = [];
    const end = Math.min(block.endLine, file.lines.length);
    for (let line = block.startLine; line <= end; line++)
      if ((file.owner[line] ?? -1) >= 0) rows.push(normalizeRow(file.lines[line - 1] ?? ""));
    texts.push({ path, rows, fileRows: file.rows });
  }
  return texts;
}
