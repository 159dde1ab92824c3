import { extname, resolve } from "node:path";
import {
  DistDebugError,
  type FileIssue,
  formatOf,
  loadConfig,
  parseAnyFile,
  readFileChecked,
} from "@distdebug/schema";
import { defineCommand, usageError } from "../command.js";
import { errorMessage } from "../error-text.js";
import { MAX_BLOCKS_OPTION, scoringParameters } from "../scoring-options.js";

interface Verdict {
  file: string;
  ok: boolean;
  kind?: string;
  format?: string;
  error?: string;
  /** The error's code (`INVALID_FILE`, `INVALID_CONFIG`, `FILE_NOT_FOUND`, ...). */
  code?: string;
  /** Each problem with its JSON path, as `run --json` reports them; empty when none has one. */
  issues?: FileIssue[];
}

/** The verdict on a file that did not validate: the message, the code, the issues. */
function failed(file: string, path: string, error: unknown): Verdict {
  const known = DistDebugError.isInstance(error) ? error : undefined;
  const data = known?.data as { issues?: FileIssue[] } | undefined;
  return {
    file,
    ok: false,
    error: errorMessage(error).replace(path, file),
    ...(known ? { code: known.code } : {}),
    issues: data?.issues ?? [],
  };
}

async function validateOne(
  file: string,
  cwd: string,
  maxDiagnosisBlocks: number | undefined,
): Promise<Verdict> {
  const path = resolve(cwd, file);
  try {
    if ([".yaml", ".yml"].includes(extname(file).toLowerCase())) {
      await loadConfig({ files: [path] });
      return { file, ok: true, kind: "config", format: formatOf("config") };
    }
    const bytes = await readFileChecked(path);
    const result = parseAnyFile(bytes, {
      source: file,
      ...(maxDiagnosisBlocks === undefined ? {} : { maxDiagnosisBlocks }),
    });
    return { file, ok: true, kind: result.kind, format: result.tag };
  } catch (error) {
    return failed(file, path, error);
  }
}

export default defineCommand({
  usage: "validate <file>...",
  description:
    'Checks each file against its DistDebug format, told by its "format" field (YAML files are run configs; mini-swe-agent trajectories are recognized and converted). A diagnosis is valid here exactly when evaluate, run and score accept it (at most --max-diagnosis-blocks blocks, default 200). Exits 1 when any file is invalid.',
  options: { ...MAX_BLOCKS_OPTION },
  async run(args, io) {
    if (args.positionals.length === 0) throw usageError("name at least one file to validate");
    const { maxDiagnosisBlocks } = scoringParameters(args);
    const verdicts: Verdict[] = [];
    for (const file of args.positionals)
      verdicts.push(await validateOne(file, io.cwd, maxDiagnosisBlocks));
    if (args.values.json)
      io.stdout(
        `${JSON.stringify({ ok: verdicts.every((v) => v.ok), files: verdicts }, null, 2)}\n`,
      );
    else {
      for (const verdict of verdicts) {
        if (verdict.ok) io.stdout(`ok     ${verdict.file}: ${verdict.kind} (${verdict.format})\n`);
        else io.stdout(`error  ${verdict.error}\n`);
      }
    }
    return verdicts.every((verdict) => verdict.ok) ? 0 : 1;
  },
});
