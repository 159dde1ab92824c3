import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  DistDebugError,
  errorMessage,
  type InvalidFileData,
  listFilesBelow,
} from "@distdebug/schema";
import type { DatasetProblem } from "../problems.js";

/** The text files below `dir` by POSIX path. */
export async function readTree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const path of await listFilesBelow(dir))
    files.set(path, await readFile(join(dir, path), "utf8"));
  return files;
}

/** Turns a thrown parse error into problems of `file` (every JSON path of an INVALID_FILE). */
export function problemsOf(error: unknown, file: string): DatasetProblem[] {
  if (DistDebugError.isInstance(error)) {
    const data = error.data as Partial<InvalidFileData> | undefined;
    if (error.code === "INVALID_FILE" && data?.issues && data.issues.length > 0)
      return data.issues.map((issue) => ({
        file,
        path: issue.path,
        message: `expected ${issue.expected}, found ${issue.found}`,
      }));
    if (error.code === "FILE_NOT_FOUND") return [{ file, message: "the file is missing" }];
    const message = error.message.startsWith(`${file}: `)
      ? error.message.slice(file.length + 2)
      : error.message;
    return [{ file, message }];
  }
  return [{ file, message: errorMessage(error) }];
}
