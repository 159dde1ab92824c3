import { z } from "zod";
import { formatTag } from "./common.js";

/** `dataset.json`: a dataset folder's index. */
export const DatasetIndex = z.object({
  format: formatTag("dataset", 1),
  name: z.string().min(1),
  version: z.string().min(1),
  description: z.string().optional(),
  /** Incident ids; each has a folder of that name beside dataset.json. */
  incidents: z.array(z.string().min(1)),
});
/** `dataset.json`. */
export type DatasetIndex = z.infer<typeof DatasetIndex>;
