import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Language } from "@distdebug/schema";

/** A seeded PRNG (mulberry32), so the generated repository is the same on every run. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Template {
  fixture: string;
  extension: string;
  /** Lines dropped from every unit after the first (package clauses). */
  dropFromRepeats: RegExp;
  /** Identifiers renamed per unit, so no two files or units are alike. */
  rename: string[];
  /** A symbol (with `{n}` for the unit suffix) a diagnosis may name. */
  symbol: string;
  /** Share of the 20 MB. */
  share: number;
}

const fixtures = new URL("../../packages/evaluator/fixtures/sources/", import.meta.url);

export const templates: Record<Language, Template> = {
  java: {
    fixture: "FinalRequestProcessor.java",
    extension: ".java",
    dropFromRepeats: /^(package|import) /,
    rename: ["FinalRequestProcessor", "processRequest", "checkAcl", "Helper"],
    symbol: "FinalRequestProcessor{n}.processRequest{n}",
    share: 0.3,
  },
  go: {
    fixture: "raft.go",
    extension: ".go",
    dropFromRepeats: /^(package |import \(|\t"errors"|\tpb |\)$)/,
    rename: ["Step", "newRaft", "becomeFollower", "reset", "ErrProposalDropped", "raft"],
    symbol: "(*raft{n}).Step{n}",
    share: 0.2,
  },
  cpp: {
    fixture: "replica.cc",
    extension: ".cc",
    dropFromRepeats: /^#include/,
    rename: ["Replica", "Apply", "Vote", "Clamp"],
    symbol: "Replica{n}::Apply{n}",
    share: 0.15,
  },
  c: {
    fixture: "wal.c",
    extension: ".c",
    dropFromRepeats: /^#include/,
    rename: [
      "wal_append",
      "wal_close",
      "wal_open",
      "wal_checksum",
      "wal_size",
      "wal_fd",
      "WAL_MAGIC",
    ],
    symbol: "wal_append{n}",
    share: 0.1,
  },
  python: {
    fixture: "scheduler.py",
    extension: ".py",
    dropFromRepeats: /^(import |""")/,
    rename: ["Scheduler", "retry", "drain", "assign"],
    symbol: "Scheduler{n}.assign{n}",
    share: 0.1,
  },
  rust: {
    fixture: "store.rs",
    extension: ".rs",
    dropFromRepeats: /^use /,
    rename: ["Store", "Msg", "Handler", "replay", "compact", "apply", "wal"],
    symbol: "Store{n}::apply{n}",
    share: 0.1,
  },
  scala: {
    fixture: "Cleaner.scala",
    extension: ".scala",
    dropFromRepeats: /^package /,
    rename: [
      "LogCleaner",
      "Cleaner",
      "Retention",
      "Compaction",
      "Compactor",
      "runCleaner",
      "clean",
    ],
    symbol: "LogCleaner{n}.clean{n}",
    share: 0.05,
  },
};

/** One generated file. */
export interface GeneratedFile {
  path: string;
  language: Language;
  text: string;
  lineCount: number;
  /** Unit suffixes used in this file (for symbol spans). */
  units: string[];
}

function unit(template: Template, body: string[], suffix: string, first: boolean): string {
  let text = (first ? body : body.filter((line) => !template.dropFromRepeats.test(line))).join(
    "\n",
  );
  for (const name of template.rename)
    text = text.replace(new RegExp(`\\b${name}\\b`, "g"), `${name}${suffix}`);
  return `${text}\n`;
}

/**
 * Generates the benchmark repository: about `totalBytes` of source in seven languages, a few
 * files per language over 1 MB, the rest 30-300 KB, every file distinct.
 */
export function generateRepository(totalBytes: number, seed = 1): GeneratedFile[] {
  const next = random(seed);
  const files: GeneratedFile[] = [];
  for (const [language, template] of Object.entries(templates) as [Language, Template][]) {
    const body = readFileSync(new URL(template.fixture, fixtures), "utf8").trimEnd().split("\n");
    const budget = totalBytes * template.share;
    let used = 0;
    let fileIndex = 0;
    while (used < budget) {
      const big =
        fileIndex < (template.share >= 0.1 ? 1 : 0) || (fileIndex === 1 && template.share >= 0.2);
      const target = Math.min(
        budget - used,
        big ? 1_100_000 + next() * 400_000 : 30_000 + next() * 270_000,
      );
      const parts = [
        `// generated ${language} file ${fileIndex}\n`.replace(
          "//",
          language === "python" ? "#" : "//",
        ),
      ];
      let size = parts[0]!.length;
      const units: string[] = [];
      for (let u = 0; size < target; u++) {
        const suffix = `_${fileIndex}_${u}`;
        const text = unit(template, body, suffix, u === 0);
        parts.push(text);
        units.push(suffix);
        size += text.length;
      }
      const text = parts.join("");
      const path = `${language}/module${fileIndex % 5}/file${fileIndex}${template.extension}`;
      files.push({ path, language, text, lineCount: text.split("\n").length - 1, units });
      used += text.length;
      fileIndex++;
    }
  }
  return files;
}

/** Writes the files below `dir`. */
export async function writeRepository(dir: string, files: GeneratedFile[]): Promise<void> {
  for (const file of files) {
    const path = join(dir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.text);
  }
}

export function symbolOf(file: GeneratedFile, unitIndex: number): string {
  const suffix = file.units[unitIndex % file.units.length] ?? "";
  return templates[file.language].symbol.replaceAll("{n}", suffix);
}
