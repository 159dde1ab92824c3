/**
 * A file the agent was given beside the report (a log, a stack trace, a metrics dump), as
 * text.
 */
export interface ReportArtifact {
  /** Relative path in the incident folder, for example `logs/server-2.log`. */
  path: string;
  /** The artifact's kind from incident.json, for example `log` or `stack-trace`. */
  kind?: string;
  description?: string;
  /** The file's text. The report inlines its first 65,536 characters and describes the rest. */
  content: string;
}

/**
 * What a report shows of an incident beyond the results folder: its title, system and
 * languages (in the per-incident table) and the report and artifacts the agent was given (on
 * each attempt page). Everything here is shown as escaped text.
 */
export interface ReportIncident {
  title: string;
  system: string;
  languages: readonly string[];
  /** The incident report (markdown) the agent read; undefined when not known. */
  report?: string;
  /** The artifacts the agent was given, in the order of incident.json. */
  artifacts?: readonly ReportArtifact[];
}
