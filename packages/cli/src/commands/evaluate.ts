import { notImplemented } from "../command.js";

export default notImplemented("evaluate");
