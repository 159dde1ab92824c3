import { defineDistdebugProject } from "../vitest.shared.js";

export default defineDistdebugProject("tests");
