import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Rewrites an incident folder's `incident.json` through `edit` (parsed, changed in place,
 * written back as compact JSON), as a labeler's correction would.
 */
export async function editIncidentJson(
  incidentDir: string,
  edit: (incident: Record<string, unknown>) => void,
): Promise<void> {
  const file = join(incidentDir, "incident.json");
  const incident = JSON.parse(await readFile(file, "utf8"));
  edit(incident);
  await writeFile(file, JSON.stringify(incident));
}
