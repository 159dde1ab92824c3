import { notImplemented } from "../command.js";

export default notImplemented("leakage-check");
