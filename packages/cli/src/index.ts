export { CLI_VERSION, errorMessage, runCli } from "./cli.js";
export {
  type Command,
  type CommandArgs,
  type CommandOption,
  defineCommand,
  UsageError,
} from "./command.js";
export { type CliIO, processIO } from "./io.js";
