import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const RESULTS_DIR = fileURLToPath(new URL("../../results/", import.meta.url));

/** The V8 CPU profiler of this process, from now until `stop`, which writes the profile and returns a top-n by self time. */
export async function startProfiler(): Promise<{ stop(name: string, top?: number): Promise<string> }> {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return {
    async stop(name, top = 12) {
      const { profile } = (await session.post("Profiler.stop")) as { profile: CpuProfile };
      session.disconnect();
      const path = join(RESULTS_DIR, `${name}.cpuprofile`);
      mkdirSync(RESULTS_DIR, { recursive: true });
      writeFileSync(path, JSON.stringify(profile));
      return `${path}; by self time: ${topSelfTime(profile, top)}`;
    },
  };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

function topSelfTime(profile: CpuProfile, count: number): string {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = byNode.get(id)!.callFrame;
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const total = [...self.values()].reduce((sum, value) => sum + value, 0);
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, micros]) => `${name} ${((micros / total) * 100).toFixed(1)} %`)
    .join("; ");
}
