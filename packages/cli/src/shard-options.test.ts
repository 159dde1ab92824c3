import { describe, expect, it } from "vitest";
import { shardFromArgs } from "./shard-options.js";

const shard = (values: Record<string, string>, env: Record<string, string> = {}) =>
  shardFromArgs({ values, positionals: [] }, env);

/** The variables Slurm sets in a task of `sbatch --array=<min>-<max>[:step]`. */
function slurmTask(id: number, min: number, max: number, step = 1): Record<string, string> {
  return {
    SLURM_ARRAY_JOB_ID: "41",
    SLURM_ARRAY_TASK_ID: String(id),
    SLURM_ARRAY_TASK_MIN: String(min),
    SLURM_ARRAY_TASK_MAX: String(max),
    SLURM_ARRAY_TASK_STEP: String(step),
    SLURM_ARRAY_TASK_COUNT: String((max - min) / step + 1),
  };
}

describe("the shard of a run", () => {
  it("takes a Slurm array task's position, whatever the array starts at or steps by", () => {
    const count = { "shard-count": "3" };
    for (const [min, step] of [
      [0, 1],
      [1, 1],
      [5, 1],
      [0, 5],
    ] as const) {
      const indexes = [0, 1, 2].map(
        (position) =>
          shard(count, slurmTask(min + position * step, min, min + 2 * step, step))?.index,
      );
      expect(indexes, `--array=${min}-${min + 2 * step}:${step}`).toEqual([1, 2, 3]);
    }
    expect(shard(count, slurmTask(2, 1, 3))).toEqual({ index: 2, count: 3, scheduler: "slurm" });
    expect(shard(count, { JOB_COMPLETION_INDEX: "2" })).toEqual({
      index: 3,
      count: 3,
      scheduler: "kubernetes",
    });
  });

  it("lets flags win over both schedulers, and stays unsharded without a shard flag", () => {
    const both = { ...slurmTask(1, 1, 3), JOB_COMPLETION_INDEX: "0" };
    expect(shard({ "shard-index": "3", "shard-count": "3" }, both)).toEqual({ index: 3, count: 3 });
    expect(shard({ shard: "2/3" }, both)).toEqual({ index: 2, count: 3 });
    expect(shard({}, both)).toBeUndefined();
  });

  it("refuses what cannot name one shard, naming the variables", () => {
    const count = { "shard-count": "3" };
    const both = { ...slurmTask(1, 1, 3), JOB_COMPLETION_INDEX: "0" };
    expect(() => shard(count, both)).toThrow(
      /both JOB_COMPLETION_INDEX="0" \(Kubernetes\) and SLURM_ARRAY_TASK_ID="1" \(Slurm\) are set; pass --shard-index/,
    );
    // `sbatch --array=2 job.sbatch`: one task of a resubmitted array cannot know its shard.
    expect(() => shard(count, slurmTask(2, 2, 2))).toThrow(
      /this Slurm array has 1 task \(SLURM_ARRAY_TASK_COUNT\), not 3/,
    );
    // `--array=1,4,6`: a list, not a range.
    expect(() => shard(count, { ...slurmTask(4, 1, 3), SLURM_ARRAY_TASK_MAX: "6" })).toThrow(
      /SLURM_ARRAY_TASK_ID=4 is not a position of a regular array range/,
    );
    expect(() => shard(count, { ...slurmTask(1, 1, 3), SLURM_ARRAY_TASK_MIN: "x" })).toThrow(
      /SLURM_ARRAY_TASK_MIN: expected a whole number >= 0, found "x"/,
    );
    expect(() => shard(count)).toThrow(/SLURM_ARRAY_TASK_ID \(Slurm job array\), found none/);
  });
});
