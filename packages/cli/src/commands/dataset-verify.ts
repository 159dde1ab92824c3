import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { globToRegExp, type IncidentVerification, verifyIncident } from "@distdebug/dataset";
import { mirrorOf, removeDeadWorkDirs, runPool, verifyScratchPrefix } from "@distdebug/runner";
import { type DiskBudget, mountDiskBudget } from "@distdebug/sandbox";
import {
  defineCommand,
  optionalPositiveInt,
  optionalString,
  stringList,
  usageError,
} from "../command.js";
import { loadDatasetArg, MIRROR_OPTION, mirrorsFromArgs } from "../dataset-arg.js";
import { CACHE_DIR_OPTION, cacheDirOf } from "../render/cache-dir.js";

/** The scratch tmpfs's cap per incident verified at once (the largest catalog tree, built, is far below). */
const SCRATCH_BYTES_PER_SLOT = 2 * 1024 * 1024 * 1024;

/**
 * The folder the incidents' workspaces are built and checked in: as root a tmpfs (building
 * writes every file of the revision: on a disk most of it is the kernel's journaling), else a
 * plain folder; removed by `release`, or by the next run or verify on this cache if this
 * process is killed first (the folder's name holds its pid).
 */
async function scratchFolder(
  tempDir: string,
  concurrency: number,
): Promise<{ dir: string; release(): Promise<void> }> {
  const dir = await mkdtemp(join(tempDir, verifyScratchPrefix()));
  let budget: DiskBudget | undefined;
  try {
    budget = await mountDiskBudget({ dir, bytes: SCRATCH_BYTES_PER_SLOT * concurrency });
  } catch {
    budget = undefined;
  }
  return {
    dir,
    async release() {
      await budget?.release();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function render(result: IncidentVerification, seconds: number): string {
  const head = `${result.ok ? "ok   " : "FAIL "} ${result.id} (${seconds.toFixed(1)} s)`;
  const lines = [
    ...result.problems.map((line) => `      problem: ${line}`),
    ...result.notes.map((line) => `      note: ${line}`),
  ];
  return `${[head, ...lines].join("\n")}\n`;
}

export default defineCommand({
  usage:
    "dataset verify <dir> [--mirror <folder | owner/name=<gitdir>>]... [--bug <id|glob>]... [--concurrency N]",
  description:
    "Checks each labeled incident of a dataset against its real repository (CATALOG.md): the commits exist and the first fix's only parent is the buggy commit, every gold block lies inside its file and is touched by or adjacent to the fix (else its note must say why), the workspace prepares, no needle occurs at the buggy revision and the leakage check is clean. Repositories come from --mirror (a folder of mirrors, or an explicit owner/name=<gitdir>), else they are cloned into the cache. Exits 1 when any incident fails.",
  options: {
    ...MIRROR_OPTION,
    bug: { type: "string", multiple: true, description: "incident id or glob (repeatable)" },
    concurrency: {
      type: "string",
      description: "incidents verified at once (default 2: git and the scans wait on the disk)",
    },
    ...CACHE_DIR_OPTION,
  },
  async run(args, io) {
    if (args.positionals.length !== 1) throw usageError("name one dataset folder");
    const dataset = await loadDatasetArg(args.positionals[0]!, io.cwd);
    const patterns = stringList(args, "bug").map(globToRegExp);
    const incidents = dataset.incidents.filter(
      (entry) =>
        entry.scorable && (patterns.length === 0 || patterns.some((p) => p.test(entry.id))),
    );
    const mirrors = mirrorsFromArgs(args, io.cwd);
    const cacheDir = cacheDirOf(optionalString(args, "cache-dir"), io);
    await mkdir(join(cacheDir, "tmp"), { recursive: true });
    // A killed verify or run left its scratch tmpfs mounted: unmount and remove it.
    await removeDeadWorkDirs(join(cacheDir, "tmp"));
    const results: (IncidentVerification & { seconds: number })[] = [];
    const slots = new Map<string, number>(incidents.map((incident, index) => [incident.id, index]));
    const concurrency = optionalPositiveInt(args, "concurrency") ?? 2;
    const scratch = await scratchFolder(join(cacheDir, "tmp"), concurrency);
    try {
      await runPool(incidents, { concurrency, signal: io.signal }, async (incident) => {
        const started = performance.now();
        const source = await mirrorOf(incident, mirrors);
        const result = await verifyIncident({
          incident,
          cacheDir: join(cacheDir, "tmp"),
          scratchDir: scratch.dir,
          ...(source ? { source } : {}),
          ...(io.signal ? { signal: io.signal } : {}),
        });
        const seconds = (performance.now() - started) / 1000;
        results[slots.get(incident.id)!] = { ...result, seconds };
        if (!args.values.json) io.stdout(render(result, seconds));
      });
    } finally {
      await scratch.release();
    }
    // In the dataset's order (they finish in any order); an interrupted run leaves holes.
    results.splice(0, results.length, ...results.filter((result) => result !== undefined));
    const failed = results.filter((result) => !result.ok).length;
    if (args.values.json) io.stdout(`${JSON.stringify({ ok: failed === 0, results }, null, 2)}\n`);
    else io.stdout(`${results.length - failed} of ${results.length} incidents verified\n`);
    return failed === 0 ? 0 : 1;
  },
});
