import { defineDistdebugProject } from "../../vitest.shared.js";

export default defineDistdebugProject("test-fixtures");
