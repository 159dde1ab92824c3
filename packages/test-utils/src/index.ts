export { cgroupV2Folder } from "./cgroup-folder.js";
export { COMMON_FUNCTION_NAMES } from "./common-names.js";
export {
  anthropicBody,
  type FakeModelServer,
  type FakeReply,
  type FakeRequest,
  type FakeResponder,
  openAiBody,
  postToSocket,
  startFakeModelServer,
} from "./fake-model-server.js";
export { type GitHttpServer, gitHttpServer } from "./git-http-server.js";
export {
  type FixtureCommit,
  type FixtureRepo,
  type GitdirOptions,
  gitdir,
} from "./gitdir.js";
export {
  childProcesses,
  type HostProcess,
  listProcesses,
  waitFor,
} from "./host-processes.js";
export { editIncidentJson } from "./incident-json.js";
export { paxRecords, type RawTarEntry, rawTar, rawTarGz } from "./raw-tar.js";
export { catalogDatasetDir, exampleDatasetDir, repoPath, repoRoot } from "./repo-paths.js";
export { LEASEKV_SEARCH_COMMANDS, LEASEKV_WRONG_DIAGNOSIS } from "./search-script.js";
export {
  type FixtureEntry,
  type FixtureFiles,
  removeTestdir,
  testdir,
  writeFixtureFiles,
} from "./testdir.js";
