import { incidentTask, loadGold } from "@distdebug/dataset";
import { DistDebugError } from "@distdebug/schema";
import { defineCommand, usageError } from "../command.js";
import { loadDatasetArg } from "../dataset-arg.js";

export default defineCommand({
  usage: "dataset show <dir> <id> [--gold]",
  description:
    "Shows one incident: its facts, its artifacts and its report, as an agent would get them. --gold adds the gold blocks, the fix commit and the leakage needles (never shown to agents).",
  options: {
    gold: { type: "boolean", description: "also show the gold labels and the fix" },
  },
  async run(args, io) {
    if (args.positionals.length !== 2) throw usageError("name a dataset folder and an incident id");
    const [dir, id] = args.positionals as [string, string];
    const dataset = await loadDatasetArg(dir, io.cwd);
    const entry = dataset.incidents.find((item) => item.id === id);
    if (!entry)
      throw new DistDebugError({
        code: "INVALID_ARGUMENT",
        message: `${dir} has no incident ${JSON.stringify(id)}; its incidents are ${dataset.incidents.map((item) => item.id).join(", ")}`,
        data: { id },
      });
    const task = await incidentTask(entry);
    const gold = args.values.gold ? await loadGold(entry) : undefined;
    const { incident } = entry;
    if (args.values.json) {
      io.stdout(
        `${JSON.stringify(
          {
            incident,
            scorable: entry.scorable,
            report: task.report,
            artifacts: task.artifacts,
            ...(args.values.gold ? { gold: gold ?? null } : {}),
          },
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    const lines = [
      `${incident.id}: ${incident.title}`,
      `system       ${incident.system} (${incident.languages.join(", ")})`,
      `category     ${incident.category}`,
      `repository   ${entry.repository.kind === "remote" ? entry.repository.url : "stored as data (repo/)"} @ ${incident.repository.buggyCommit}`,
      `clues        report ${incident.clues.reportNamesCausalMethod ? "names" : "does not name"} the causal method; ${incident.clues.usableStackTrace ? "a usable" : "no usable"} in-project stack trace`,
      `scored       ${entry.scorable ? "yes" : "no (no gold.json: the diagnosis is recorded, not scored)"}`,
      "artifacts",
      ...task.artifacts.map(
        (artifact) =>
          `  ${artifact.path} (${artifact.kind}${artifact.description ? `: ${artifact.description}` : ""})`,
      ),
    ];
    if (args.values.gold) {
      if (!gold) lines.push("gold         none");
      else {
        lines.push(
          `fix commit   ${gold.fix.commit}`,
          `needles      ${gold.needles.join(" | ")}`,
          "gold blocks",
        );
        for (const block of gold.blocks)
          lines.push(
            `  ${block.path}:${block.startLine}-${block.endLine}${block.note ? `  ${block.note}` : ""}`,
          );
      }
    }
    io.stdout(`${lines.join("\n")}\n\n${task.report.trimEnd()}\n`);
    return 0;
  },
});
