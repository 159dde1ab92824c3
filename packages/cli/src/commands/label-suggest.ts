import { notImplemented } from "../command.js";

export default notImplemented("label suggest");
