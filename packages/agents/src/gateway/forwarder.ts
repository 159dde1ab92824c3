import { fileURLToPath } from "node:url";

/** Host path of the in-sandbox forwarder (a dependency-free node script). */
export const forwarderProgramFile = fileURLToPath(new URL("./forwarder.mjs", import.meta.url));

/** Where the forwarder is bound inside the sandbox. */
export const FORWARDER_PROGRAM_PATH = "/opt/distdebug/forwarder.mjs";

/** Where the node binary is bound inside the sandbox (to run the forwarder). */
export const SANDBOX_NODE_PATH = "/opt/distdebug/node";

/** The placeholder key agents see inside the sandbox; the gateway replaces it with the real one. */
export const GATEWAY_PLACEHOLDER_KEY = "sk-distdebug-gateway-placeholder";
