import type { ModelConfig } from "@distdebug/schema";
import type { MeteredCall, UsageMeter } from "../model/usage-meter.js";
import type { SocketOwner } from "./private-socket.js";

/** Options of `startGateway`. */
export interface StartGatewayOptions {
  /** The model the config names: its protocol, upstream base URL, name, timeout, retries. */
  model: ModelConfig;
  /** The real key; added to upstream requests only, never sent back. */
  apiKey: string;
  /** Meters every call and holds the cost and token budget. */
  meter: UsageMeter;
  /** Folder for the socket. Default: a new short-named folder (mode 0700) in the OS temp dir. */
  dir?: string;
  /**
   * The only user that may connect (besides root): the uid:gid the sandbox runs commands as
   * when the host runs as root. Default: the caller's own uid (socket mode 0600).
   */
  owner?: SocketOwner;
  /** Delay before the first retry of an upstream 429/5xx. Default 1000 ms. */
  retryInitialDelayMs?: number;
  /** Called after each metered call. */
  onCall?: (call: MeteredCall) => void;
}
