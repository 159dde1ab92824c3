import { DistDebugError, type Language } from "@distdebug/schema";
import type { Dataset, DatasetIncident } from "./types.js";

/** Filters of {@link selectIncidents}; each given filter must match (an AND of filters). */
export interface IncidentSelection {
  /** Id globs (`*` any run of characters, `?` one character), for example `zookeeper-*`. */
  ids?: readonly string[];
  /** Systems, for example `zookeeper`. */
  systems?: readonly string[];
  /** Languages; an incident matches when it has any of them. */
  languages?: readonly Language[];
}

/** Compiles an id glob to a regular expression that matches whole ids. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (const char of glob) {
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else source += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/**
 * Selects incidents of a dataset by id globs, systems and languages, in dataset order.
 * Empty or absent filters select everything. An id glob that matches no incident throws
 * `INVALID_ARGUMENT` naming it (a typo in `--bug` should not silently run nothing).
 *
 * @example
 * ```ts
 * const picked = selectIncidents(dataset, { ids: ["zklite-*"], languages: ["java"] });
 * ```
 */
export function selectIncidents(
  dataset: Dataset,
  selection: IncidentSelection = {},
): DatasetIncident[] {
  const globs = (selection.ids ?? []).map((glob) => ({ glob, pattern: globToRegExp(glob) }));
  const unmatched = globs.filter(
    ({ pattern }) => !dataset.incidents.some((entry) => pattern.test(entry.id)),
  );
  if (unmatched.length > 0)
    throw new DistDebugError({
      code: "INVALID_ARGUMENT",
      message: `no incident of ${dataset.index.name} matches ${unmatched.map(({ glob }) => JSON.stringify(glob)).join(", ")}; its incidents are ${dataset.incidents.map((entry) => entry.id).join(", ")}`,
      data: { unmatched: unmatched.map(({ glob }) => glob) },
    });
  const systems = new Set(selection.systems ?? []);
  const languages = new Set(selection.languages ?? []);
  return dataset.incidents.filter(
    (entry) =>
      (globs.length === 0 || globs.some(({ pattern }) => pattern.test(entry.id))) &&
      (systems.size === 0 || systems.has(entry.incident.system)) &&
      (languages.size === 0 ||
        entry.incident.languages.some((language) => languages.has(language))),
  );
}
