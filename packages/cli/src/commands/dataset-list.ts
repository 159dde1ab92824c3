import { selectIncidents } from "@distdebug/dataset";
import { Language } from "@distdebug/schema";
import { defineCommand, stringList, usageError } from "../command.js";
import { loadDatasetArg } from "../dataset-arg.js";

function languages(values: string[]): Language[] {
  return values.map((value) => {
    const parsed = Language.safeParse(value);
    if (!parsed.success)
      throw usageError(
        `--language: expected one of ${Language.options.join(", ")}, found ${JSON.stringify(value)}`,
      );
    return parsed.data;
  });
}

export default defineCommand({
  usage: "dataset list <dir> [--id <glob>]... [--system <name>]... [--language <lang>]...",
  description:
    "Lists the incidents of a dataset: id, system, languages, category, whether it can be scored, and its title. Filters combine; --id takes globs (* and ?).",
  options: {
    id: { type: "string", multiple: true, description: "incident id glob, e.g. zklite-*" },
    system: { type: "string", multiple: true, description: "system name" },
    language: { type: "string", multiple: true, description: "language (java, go, ...)" },
  },
  async run(args, io) {
    if (args.positionals.length !== 1) throw usageError("name one dataset folder");
    const dataset = await loadDatasetArg(args.positionals[0]!, io.cwd);
    const picked = selectIncidents(dataset, {
      ids: stringList(args, "id"),
      systems: stringList(args, "system"),
      languages: languages(stringList(args, "language")),
    });
    if (args.values.json) {
      io.stdout(
        `${JSON.stringify(
          {
            name: dataset.index.name,
            version: dataset.index.version,
            digest: dataset.digest,
            incidents: picked.map((entry) => ({
              id: entry.id,
              title: entry.incident.title,
              system: entry.incident.system,
              languages: entry.incident.languages,
              category: entry.incident.category,
              scorable: entry.scorable,
              repository: entry.repository.kind,
            })),
          },
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    const rows = [
      ["ID", "SYSTEM", "LANGUAGES", "CATEGORY", "SCORED", "TITLE"],
      ...picked.map((entry) => [
        entry.id,
        entry.incident.system,
        entry.incident.languages.join(","),
        entry.incident.category,
        entry.scorable ? "yes" : "no",
        entry.incident.title,
      ]),
    ];
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows)
      io.stdout(
        `${row
          .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
          .join("  ")}\n`,
      );
    io.stdout(`${picked.length} of ${dataset.incidents.length} incidents\n`);
    return 0;
  },
});
