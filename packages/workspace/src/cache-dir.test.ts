import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CacheVariableDeprecatedEvent, defaultCacheDir } from "./cache-dir.js";

describe("defaultCacheDir", () => {
  it("reads DISTDEBUG_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache", () => {
    expect(defaultCacheDir({ env: { DISTDEBUG_CACHE_DIR: "/c", XDG_CACHE_HOME: "/x" } })).toBe(
      "/c",
    );
    expect(defaultCacheDir({ env: { XDG_CACHE_HOME: "/x" } })).toBe("/x/distdebug");
    expect(defaultCacheDir({ env: {} })).toBe(join(homedir(), ".cache", "distdebug"));
  });

  it("reads the old DISTDEBUG_CACHE with a warning event, and ignores it beside the new name", () => {
    const events: CacheVariableDeprecatedEvent[] = [];
    const onEvent = (event: CacheVariableDeprecatedEvent) => events.push(event);
    expect(defaultCacheDir({ env: { DISTDEBUG_CACHE: "/old" }, onEvent })).toBe("/old");
    expect(events).toEqual([
      {
        type: "cache-variable-deprecated",
        variable: "DISTDEBUG_CACHE",
        replacement: "DISTDEBUG_CACHE_DIR",
        value: "/old",
      },
    ]);
    expect(
      defaultCacheDir({ env: { DISTDEBUG_CACHE: "/old", DISTDEBUG_CACHE_DIR: "/new" }, onEvent }),
    ).toBe("/new");
    expect(events).toHaveLength(1);
  });
});
