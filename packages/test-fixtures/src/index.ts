export { type BaselineResults, baselineResults } from "./baseline-results.js";
