import { writeFile } from "node:fs/promises";
import { relative } from "node:path";
import { configDir, generatedFiles } from "./deploymentFiles.js";

// Rewrites the deployment data files; deploymentFiles.test.ts fails while the committed ones are stale.
for (const [path, text] of await generatedFiles()) {
  await writeFile(path, text);
  console.log(`wrote ${relative(configDir, path)}`);
}
