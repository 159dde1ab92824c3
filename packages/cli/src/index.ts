export { runCli } from "./cli.js";
export type { CliIO } from "./io.js";
