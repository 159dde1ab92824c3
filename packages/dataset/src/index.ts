/**
 * Loads and checks datasets and the catalog, selects incidents, reads gold labels, builds the
 * repositories of incidents stored as data, and writes the agent's task view.
 *
 * @packageDocumentation
 * @module @distdebug/dataset
 */
export {
  type AgentTaskFolderOptions,
  opaqueTaskId,
  writeAgentTaskFolder,
} from "./agent-task-folder.js";
export {
  type ArtifactCheck,
  type ArtifactText,
  type CheckArtifactsOptions,
  checkArtifacts,
  type SourceTree,
} from "./artifact-check.js";
export {
  type BuildRepositoryOptions,
  type BuiltRepository,
  buildIncidentRepository,
} from "./build-repository.js";
export { type BundledDataset, bundledDatasets } from "./bundled-datasets.js";
export {
  type DatasetSourcesOptions,
  datasetSources,
  type IncidentSources,
} from "./dataset-sources.js";
export { datasetDigest, incidentDigest, incidentDigests } from "./digest.js";
export { loadGold } from "./gold.js";
export {
  type IncidentRepository,
  type OpenIncidentRepositoryOptions,
  openIncidentRepository,
} from "./incident-repository.js";
export { checkDataset, loadDataset } from "./load-dataset.js";
export { type DatasetProblem, formatProblem, type InvalidDatasetData } from "./problems.js";
export { globToRegExp, type IncidentSelection, selectIncidents } from "./select.js";
export {
  type DatasetStats,
  datasetStats,
  type LanguageShape,
  PAPER_SHAPE,
  SHAPE_TOLERANCE,
} from "./stats.js";
export { type IncidentTask, incidentTask, type TaskArtifact, writeTaskFiles } from "./task.js";
export type {
  Dataset,
  DatasetCheck,
  DatasetCounts,
  DatasetIncident,
  IncidentRepositorySource,
} from "./types.js";
export {
  ADJACENT_ROWS,
  type IncidentVerification,
  type VerifyIncidentOptions,
  verifyIncident,
} from "./verify-incident.js";
