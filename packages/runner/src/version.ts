/** The harness version, recorded in run.json and part of every attempt's input hash. */
export const HARNESS_VERSION = "0.1.0";
