/**
 * What a `sampled-total` memory budget costs the harness: the CPU this process spends while
 * budgets sample (every MEMORY_SAMPLE_MS), measured over a quiet window, per budget, beside the
 * number of processes on the host (each sample reads every process's status).
 *
 *   node --conditions=@distdebug/source --import tsx bench/sandbox/memory-sample.ts [seconds=5] [budgets=2]
 *
 * Needs root (a sampled budget watches a leased uid). Prints numbers; exits 0.
 */
import { readdirSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { createMemoryBudget, leaseSandboxUser, MEMORY_SAMPLE_MS } from "@distdebug/sandbox";

const seconds = Number(process.argv[2] ?? 5);
const count = Number(process.argv[3] ?? 2);
if (process.getuid?.() !== 0) {
  process.stderr.write("memory-sample.ts needs root (a sampled budget watches a leased uid)\n");
  process.exit(2);
}

async function cpuMs(window: number): Promise<number> {
  const before = process.cpuUsage();
  await delay(window);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const idle = await cpuMs(seconds * 1000);
const leases = await Promise.all(Array.from({ length: count }, () => leaseSandboxUser()));
const budgets = await Promise.all(
  leases.map((lease) => createMemoryBudget({ bytes: 1024 ** 3, uid: lease.uid })),
);
const kinds = [...new Set(budgets.map((budget) => budget.enforcement))].join(", ");
const sampling = await cpuMs(seconds * 1000);
for (const budget of budgets) await budget.release();
for (const lease of leases) await lease.release();
const processes = readdirSync("/proc").filter((name) => /^\d+$/.test(name)).length;
const samples = (seconds * 1000) / MEMORY_SAMPLE_MS;
const perSample = (sampling - idle) / samples / count;
process.stdout.write(
  [
    `budgets: ${count} (${kinds}), window ${seconds} s, one sample every ${MEMORY_SAMPLE_MS} ms, ${processes} processes on the host`,
    `harness CPU: idle ${idle.toFixed(1)} ms, sampling ${sampling.toFixed(1)} ms`,
    `per sample: ${perSample.toFixed(2)} ms; per budget: ${((perSample / MEMORY_SAMPLE_MS) * 100).toFixed(2)} % of one core`,
  ].join("\n") + "\n",
);
