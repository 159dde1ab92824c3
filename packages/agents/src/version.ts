/** The version of the built-in agents, recorded in the trajectories they write. */
export const AGENTS_VERSION = "0.1.0";
