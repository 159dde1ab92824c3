import { z } from "zod";
import { formatTag } from "./common.js";

/** `dataset.json`: a dataset folder's index. */
export const DatasetIndex = z.strictObject({
  format: formatTag("dataset", 1),
  name: z.string().min(1),
  version: z.string().min(1),
  description: z.string().optional(),
  /** Incident ids; each has a folder of that name beside dataset.json. */
  incidents: z.array(z.string().min(1)),
  /**
   * Must every incident have `gold.json`? Default true. A catalog of real incidents whose
   * labels are not written yet sets false: those incidents run, but cannot be scored.
   */
  requireGold: z.boolean().default(true),
});
/** `dataset.json`. */
export type DatasetIndex = z.infer<typeof DatasetIndex>;
