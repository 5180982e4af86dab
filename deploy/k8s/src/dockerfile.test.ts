import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { RUN_AS_UID, SERVICES } from "./deployables.js";
import {
  checkDockerfile,
  checkDockerignore,
  type DockerfileExpectations,
  finalUser,
  parseDockerfile,
} from "./dockerfile.js";
import { REPO_ROOT } from "./paths.js";

const dockerfile = await readFile(join(REPO_ROOT, "Dockerfile"), "utf8");
const rootPackage = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as { packageManager: string };
const expectations: DockerfileExpectations = {
  nodeMajor: 22,
  serviceArg: "SERVICE",
  pnpmVersion: rootPackage.packageManager.replace(/^pnpm@/, ""),
};

describe("the Dockerfile", () => {
  test("is multi-stage on a pinned Node 22, builds the service named by a build argument, runs as non-root, has no HEALTHCHECK", () => {
    expect(checkDockerfile(dockerfile, expectations)).toEqual([]);
  });

  test("runs as the uid the pod securityContext declares", () => {
    expect(finalUser(parseDockerfile(dockerfile))?.uid).toBe(RUN_AS_UID);
  });

  test("every image the manifests use is a service folder the build argument can name", async () => {
    for (const service of SERVICES) {
      const manifest = JSON.parse(await readFile(join(REPO_ROOT, "services", service, "package.json"), "utf8")) as {
        name: string;
      };
      expect(manifest.name).toBe(`@platform/${service}`);
    }
  });

  test("the build context leaves out installed, built and local files", async () => {
    expect(checkDockerignore(await readFile(join(REPO_ROOT, ".dockerignore"), "utf8"))).toEqual([]);
  });
});

describe("the Dockerfile checks bite", () => {
  const variants: Array<[string, (text: string) => string, RegExp]> = [
    [
      "a single stage",
      (text) => text.slice(text.lastIndexOf("FROM ")).replace(/COPY --from=build \/out\/ \/app\//, "COPY . /app/"),
      /must be multi-stage/,
    ],
    ["a latest base", (text) => text.replaceAll(/FROM node:\S+/g, "FROM node:latest"), /pin a tag, never latest/],
    ["an untagged base", (text) => text.replaceAll(/FROM node:\S+/g, "FROM node"), /pin a tag, never latest/],
    [
      "a floating major tag",
      (text) => text.replaceAll(/FROM node:\S+/g, "FROM node:22-slim"),
      /pinned by full version/,
    ],
    [
      "another Node major",
      (text) => text.replaceAll(/FROM node:22\.\d+\.\d+/g, "FROM node:20.19.0"),
      /base must be node:22/,
    ],
    ["a HEALTHCHECK", (text) => `${text}\nHEALTHCHECK CMD node -e "process.exit(0)"\n`, /must not declare HEALTHCHECK/],
    ["no USER", (text) => text.replace(/^USER .*$/m, ""), /must set USER/],
    ["USER root", (text) => text.replace(/^USER .*$/m, "USER 0:0"), /must not be root/],
    ["a named USER", (text) => text.replace(/^USER .*$/m, "USER node"), /use a numeric uid/],
    ["no service build argument", (text) => text.replaceAll(/^ARG SERVICE$/gm, "ARG APP"), /must declare ARG SERVICE/],
    ["a shell-form CMD", (text) => text.replace(/^CMD .*$/m, "CMD node dist/main.js"), /exec form/],
    [
      "the whole context in the runtime image",
      (text) => text.replace(/^COPY --from=build .*$/m, "COPY . /app/"),
      /copy only the build stage's output/,
    ],
    [
      "a full install instead of a production deploy",
      (text) => text.replace(/deploy --prod --legacy/, "deploy --legacy"),
      /pnpm deploy --prod/,
    ],
    [
      "another pnpm",
      (text) => text.replace(/PNPM_VERSION=\S+/, "PNPM_VERSION=9.0.0"),
      /differs from the workspace's pnpm/,
    ],
  ];
  test.each(variants)("%s is reported", (_name, change, expected) => {
    const changed = change(dockerfile);
    expect(changed).not.toBe(dockerfile);
    expect(checkDockerfile(changed, expectations).join("\n")).toMatch(expected);
  });

  test("a .dockerignore that lets node_modules in is reported", () => {
    expect(checkDockerignore(".git\n**/dist\n.local\n")).toEqual([".dockerignore must exclude node_modules"]);
  });
});
