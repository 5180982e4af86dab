import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { checkDockerfile, checkDockerignore } from "./dockerfile.js";
import { staleBaseFiles, writeBase } from "./generate.js";
import { kafkaAclCommands } from "./kafkaAcls.js";
import { renderOverlay } from "./kustomize.js";
import { OVERLAYS, REPO_ROOT } from "./paths.js";
import { formatProblems } from "./rules/checkRules.js";
import { KUBERNETES_VERSION, StrictSchema } from "./schema.js";
import { redisAclCommands } from "./serverAcls.js";
import { validateManifests } from "./validate.js";

/**
 *   gen     regenerate deploy/k8s/base from src/deployables.ts
 *   check   render every overlay and validate it (schema + project rules), check the Dockerfile
 *   kafka-acls  print the kafka-acls.sh commands that grant each Deployment's Kafka user its ACLs
 *   redis-acls  print the redis-cli commands that create each Deployment's Redis user with its grant
 */
const command = process.argv[2];

if (command === "gen") {
  const { written, removed } = await writeBase();
  console.log(
    `wrote ${written.length} files to deploy/k8s/base${removed.length > 0 ? `, removed ${removed.join(", ")}` : ""}`,
  );
} else if (command === "check") {
  let failed = false;
  const stale = await staleBaseFiles();
  if (stale.length > 0) {
    failed = true;
    console.error(`deploy/k8s/base is stale (${stale.join(", ")}): run pnpm --filter @platform/k8s gen`);
  }
  const schema = await StrictSchema.load();
  for (const overlay of OVERLAYS) {
    const manifests = await renderOverlay(overlay);
    const report = validateManifests(manifests, schema);
    const problems = [...report.schema, ...report.rules];
    if (problems.length === 0)
      console.log(
        `overlays/${overlay}: ${manifests.length} objects valid against Kubernetes ${KUBERNETES_VERSION} (strict) and the project rules`,
      );
    else {
      failed = true;
      console.error(`overlays/${overlay}: ${problems.length} problem(s)\n${formatProblems(problems)}`);
    }
  }
  const rootPackage = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
    packageManager?: string;
  };
  const dockerProblems = [
    ...checkDockerfile(await readFile(join(REPO_ROOT, "Dockerfile"), "utf8"), {
      nodeMajor: 22,
      serviceArg: "SERVICE",
      pnpmVersion: (rootPackage.packageManager ?? "").replace(/^pnpm@/, ""),
    }),
    ...checkDockerignore(await readFile(join(REPO_ROOT, ".dockerignore"), "utf8")),
  ];
  if (dockerProblems.length > 0) {
    failed = true;
    console.error(`Dockerfile:\n${dockerProblems.join("\n")}`);
  } else console.log("Dockerfile: ok");
  process.exitCode = failed ? 1 : 0;
} else if (command === "kafka-acls") {
  console.log(kafkaAclCommands().join("\n"));
} else if (command === "redis-acls") {
  console.log(redisAclCommands().join("\n"));
} else {
  console.error("usage: cli.ts gen | check | kafka-acls | redis-acls");
  process.exitCode = 2;
}
