import { z } from "zod";
import { formatTag, textOfAtLeast } from "./common.js";
import { withJsonSchemaRule } from "./internal/json-rule.js";

/** A commit author or committer; the date is part of the commit id, so it is fixed. */
export const HistoryPerson = z.strictObject({
  name: z.string().min(1),
  email: textOfAtLeast(3),
});

/** A search-and-replace edit of one file; `find` must occur exactly once. */
export const HistoryEdit = z.strictObject({
  path: z.string().min(1),
  find: z.string().min(1),
  replace: z.string(),
});

/** An annotated tag on a commit. */
export const HistoryTag = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, "a tag name such as v1.4.1"),
  message: z.string().min(1),
});

/** One commit of an incident repository stored as data. */
export const HistoryCommit = z.strictObject({
  message: z.string().min(1),
  author: HistoryPerson,
  /** Defaults to the author. */
  committer: HistoryPerson.optional(),
  /** ISO 8601 with an offset; whole seconds. */
  date: z.iso.datetime({ offset: true }),
  /**
   * Paths copied from `tree/` (the buggy tree): a file path, a folder ending in `/`,
   * or `.` for everything.
   */
  add: z.array(z.string().min(1)).default([]),
  /** Files written with inline content (older versions, files added after the fix). */
  files: z.record(z.string(), z.string()).default({}),
  edits: z.array(HistoryEdit).default([]),
  delete: z.array(z.string().min(1)).default([]),
  /** `buggy`: the revision the agent sees (its tree must equal `tree/`); `fix`: the fix. */
  role: z.enum(["buggy", "fix"]).optional(),
  tags: z.array(HistoryTag).default([]),
});
/** One commit of an incident repository stored as data. */
export type HistoryCommit = z.infer<typeof HistoryCommit>;

const buggyCommit = { required: ["role"], properties: { role: { const: "buggy" } } };
const fixCommit = { required: ["role"], properties: { role: { const: "fix" } } };

/**
 * `repo/history.json`: an incident repository as data. Beside it, `repo/tree/` holds the
 * buggy tree; the commits replay from an empty tree, and the loader builds a real git
 * repository from them with fixed dates, so commit ids are stable.
 */
export const RepoHistory = withJsonSchemaRule(
  z
    .strictObject({
      format: formatTag("repo_history", 1),
      defaultBranch: z.string().min(1).default("main"),
      commits: z.array(HistoryCommit).min(2),
    })
    .superRefine((history, ctx) => {
      const buggy = history.commits.flatMap((commit, index) =>
        commit.role === "buggy" ? [index] : [],
      );
      const fix = history.commits.flatMap((commit, index) =>
        commit.role === "fix" ? [index] : [],
      );
      if (buggy.length !== 1)
        ctx.addIssue({
          code: "custom",
          path: ["commits"],
          message: `exactly one commit with "role": "buggy" (found ${buggy.length})`,
        });
      if (fix.length > 1)
        ctx.addIssue({
          code: "custom",
          path: ["commits", fix[1]!, "role"],
          message: 'at most one commit with "role": "fix"',
        });
      if (buggy.length === 1 && fix.length === 1 && fix[0]! <= buggy[0]!)
        ctx.addIssue({
          code: "custom",
          path: ["commits", fix[0]!, "role"],
          message: "the fix commit after the buggy commit",
        });
    }),
  {
    jsonSchema: {
      properties: {
        commits: {
          allOf: [
            { contains: buggyCommit, minContains: 1, maxContains: 1 },
            { contains: fixCommit, minContains: 0, maxContains: 1 },
          ],
        },
      },
    },
    notExpressible: 'the commit with "role": "fix" comes after the one with "role": "buggy".',
  },
);
/** `repo/history.json`. */
export type RepoHistory = z.infer<typeof RepoHistory>;
