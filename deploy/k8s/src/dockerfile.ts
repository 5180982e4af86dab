/**
 * Structural checks of the repository's Dockerfile, which cannot be built on machines without a
 * Docker engine: multi-stage, a pinned Node 22 base, the service chosen by a build argument, a
 * production-only deploy folder, a numeric non-root user, and no HEALTHCHECK (Kubernetes probes).
 */

export interface Instruction {
  keyword: string;
  args: string;
  /** 1-based line where the instruction starts. */
  line: number;
}

export interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

export interface ParsedDockerfile {
  /** Instructions before the first FROM (global ARGs). */
  preamble: Instruction[];
  stages: Stage[];
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const instructions: Instruction[] = [];
  const lines = text.split(/\r?\n/);
  let pending: { text: string; line: number } | undefined;
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (pending === undefined && (trimmed === "" || trimmed.startsWith("#"))) return;
    if (pending !== undefined && trimmed.startsWith("#")) return; // comments inside a continuation
    const continued = trimmed.endsWith("\\");
    const body = continued ? trimmed.slice(0, -1) : trimmed;
    pending =
      pending === undefined ? { text: body, line: index + 1 } : { text: `${pending.text} ${body}`, line: pending.line };
    if (!continued) {
      const match = /^(\S+)\s*(.*)$/.exec(pending.text.trim());
      if (match) instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: pending.line });
      pending = undefined;
    }
  });

  const parsed: ParsedDockerfile = { preamble: [], stages: [] };
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const parts = instruction.args.split(/\s+/).filter((part) => !part.startsWith("--"));
      const asAt = parts.findIndex((part) => part.toUpperCase() === "AS");
      parsed.stages.push({
        image: parts[0] ?? "",
        ...(asAt >= 0 && parts[asAt + 1] ? { name: parts[asAt + 1] } : {}),
        instructions: [],
      });
      continue;
    }
    const stage = parsed.stages.at(-1);
    if (stage) stage.instructions.push(instruction);
    else parsed.preamble.push(instruction);
  }
  return parsed;
}

export interface DockerfileExpectations {
  nodeMajor: number;
  /** The build argument that names the service. */
  serviceArg: string;
  /** pnpm version the workspace declares (root package.json `packageManager`). */
  pnpmVersion: string;
}

/** The uid:gid the final stage runs as, when it sets a numeric USER. */
export function finalUser(parsed: ParsedDockerfile): { uid: number; gid?: number } | undefined {
  const user = parsed.stages
    .at(-1)
    ?.instructions.filter((instruction) => instruction.keyword === "USER")
    .at(-1)?.args;
  const match = user ? /^(\d+)(?::(\d+))?$/.exec(user) : null;
  if (!match) return undefined;
  return { uid: Number(match[1]), ...(match[2] !== undefined ? { gid: Number(match[2]) } : {}) };
}

export function checkDockerfile(text: string, expected: DockerfileExpectations): string[] {
  const problems: string[] = [];
  const parsed = parseDockerfile(text);
  const all = [...parsed.preamble, ...parsed.stages.flatMap((stage) => stage.instructions)];

  if (parsed.stages.length < 2) problems.push(`must be multi-stage (found ${parsed.stages.length} FROM)`);
  const pinned = new RegExp(`^node:${expected.nodeMajor}\\.\\d+\\.\\d+(-[a-z0-9.-]+)?(@sha256:[0-9a-f]{64})?$`);
  for (const stage of parsed.stages) {
    if (parsed.stages.some((other) => other.name !== undefined && other.name === stage.image)) continue; // FROM an earlier stage
    if (/(^|:)latest(@|$)/.test(stage.image) || !stage.image.includes(":"))
      problems.push(`FROM ${stage.image}: pin a tag, never latest`);
    else if (!pinned.test(stage.image))
      problems.push(
        `FROM ${stage.image}: base must be node:${expected.nodeMajor}.<minor>.<patch>[-variant], pinned by full version`,
      );
  }

  if (all.some((instruction) => instruction.keyword === "HEALTHCHECK"))
    problems.push("must not declare HEALTHCHECK (Kubernetes probes the services)");

  const build = parsed.stages.slice(0, -1);
  const runtime = parsed.stages.at(-1);
  const argDeclared = build.some((stage) =>
    stage.instructions.some(
      (instruction) => instruction.keyword === "ARG" && instruction.args.split("=")[0] === expected.serviceArg,
    ),
  );
  if (!argDeclared) problems.push(`a build stage must declare ARG ${expected.serviceArg}`);
  const argUse = new RegExp(`\\$\\{?${expected.serviceArg}\\b`);
  const runs = build.flatMap((stage) =>
    stage.instructions.filter((instruction) => instruction.keyword === "RUN").map((instruction) => instruction.args),
  );
  if (!runs.some((run) => argUse.test(run))) problems.push(`no RUN of a build stage uses $${expected.serviceArg}`);
  if (!runs.some((run) => /\btsc -b\b/.test(run))) problems.push("the build stage must compile with tsc -b");
  if (!runs.some((run) => /\bpnpm\b.*\bdeploy\b.*--prod\b/.test(run)))
    problems.push("the build stage must make the runtime folder with pnpm deploy --prod");
  if (!runs.some((run) => run.includes(`pnpm@\${PNPM_VERSION}`) || run.includes(`pnpm@${expected.pnpmVersion}`)))
    problems.push("the build stage must install a pinned pnpm");
  const pnpmArg = all.find(
    (instruction) => instruction.keyword === "ARG" && instruction.args.startsWith("PNPM_VERSION="),
  );
  if (pnpmArg && pnpmArg.args !== `PNPM_VERSION=${expected.pnpmVersion}`)
    problems.push(`${pnpmArg.args} differs from the workspace's pnpm ${expected.pnpmVersion}`);

  if (runtime) {
    const user = runtime.instructions.filter((instruction) => instruction.keyword === "USER").at(-1)?.args;
    const numeric = finalUser(parsed);
    if (!user) problems.push("the final stage must set USER (non-root)");
    else if (!numeric) problems.push(`USER ${user}: use a numeric uid so Kubernetes' runAsNonRoot can verify it`);
    else if (numeric.uid === 0) problems.push("USER must not be root (uid 0)");
    const copies = runtime.instructions.filter(
      (instruction) => instruction.keyword === "COPY" || instruction.keyword === "ADD",
    );
    const buildNames = new Set(build.map((stage) => stage.name).filter(Boolean));
    for (const copy of copies) {
      const from = /--from=(\S+)/.exec(copy.args)?.[1];
      if (!from || !buildNames.has(from))
        problems.push(`final stage line ${copy.line}: copy only the build stage's output (COPY --from=<build stage>)`);
    }
    if (copies.length === 0) problems.push("the final stage copies nothing from the build stage");
    const cmd = runtime.instructions.filter((instruction) => instruction.keyword === "CMD").at(-1)?.args;
    let command: unknown;
    try {
      command = cmd ? JSON.parse(cmd) : undefined;
    } catch {
      command = undefined;
    }
    if (!Array.isArray(command) || command[0] !== "node" || command[1] !== "dist/main.js") {
      problems.push(
        `the final stage must run CMD ["node", "dist/main.js"] in exec form (node receives SIGTERM itself), found ${cmd ?? "none"}`,
      );
    }
    if (
      !runtime.instructions.some(
        (instruction) => instruction.keyword === "ENV" && /\bNODE_ENV=production\b/.test(instruction.args),
      )
    ) {
      problems.push("the final stage must set NODE_ENV=production");
    }
  }
  return problems;
}

/** Patterns the build context must leave out, so host installs and builds never reach an image. */
export function checkDockerignore(text: string): string[] {
  const patterns = new Set(
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#")),
  );
  const problems: string[] = [];
  for (const [what, accepted] of [
    ["node_modules", ["**/node_modules", "node_modules"]],
    ["dist", ["**/dist", "dist"]],
    [".git", [".git"]],
    [".local", [".local"]],
  ] as const) {
    if (!accepted.some((pattern) => patterns.has(pattern))) problems.push(`.dockerignore must exclude ${what}`);
  }
  return problems;
}
