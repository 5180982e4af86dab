// Where a machine's CPU goes around a block: each watched process's CPU (with the processes it started that are not watched themselves: a
// stack process may be a launcher, as Kafka's and chopsticks' are) and the whole machine's, sampled
// on a short period, then split into the second after each read-model change and the rest
// (splitAtChanges). bench/data's profiled mix prints it beside the CPU profiles: a profile says what
// one process did at a block, this says which processes the two cores went to.
import { readdirSync, readFileSync } from "node:fs";
import { constants, setPriority } from "node:os";
import { monotonicMicros, type ProfileMarks, splitAtChanges } from "../src/cpuProfile.js";
import { cpuSeconds } from "./measure.js";

interface CpuSample {
  atMicros: number;
  /** CPU seconds so far of each watched process and its descendants. */
  processes: Record<string, number>;
  /** Busy CPU seconds so far over every core (/proc/stat). */
  machine: number;
}

export interface CpuTimeline {
  /** Stops sampling; the samples taken. */
  stop(): CpuSample[];
}

/**
 * Samples `processes` (name → pid) and the machine every `periodMs` until stopped. Each other process
 * running at the start counts for its nearest watched ancestor, if it has one (a launcher's child for
 * the launcher; the stack's processes for themselves, not for the bench that started them).
 */
export function sampleCpu(processes: Record<string, number>, periodMs = 100): CpuTimeline {
  const groups = groupByWatchedAncestor(processes);
  const samples: CpuSample[] = [];
  const take = () =>
    samples.push({
      atMicros: monotonicMicros(),
      processes: Object.fromEntries(
        Object.entries(groups).map(([name, pids]) => [
          name,
          pids.reduce((sum, pid) => {
            const seconds = cpuSeconds(pid);
            return sum + (Number.isNaN(seconds) ? 0 : seconds);
          }, 0),
        ]),
      ),
      machine: machineBusySeconds(),
    });
  take();
  const timer = setInterval(take, periodMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

export interface CpuSplit {
  name: string;
  /** Share of one core in the window after a change, and in the rest. */
  afterChange: number;
  rest: number;
}

/**
 * Each process's (and the machine's) CPU as a share of one core, in the `windowMs` after each change
 * and in the rest of the marked stretch. A sampling period goes to the window its middle falls in.
 */
export function cpuAtChanges(samples: CpuSample[], marks: ProfileMarks, windowMs: number): CpuSplit[] {
  const [after, rest] = splitAtChanges(marks, windowMs);
  const names = [...Object.keys(samples[0]?.processes ?? {}), "machine (every process)"];
  const used = { after: new Map<string, number>(), rest: new Map<string, number>() };
  const wall = { after: 0, rest: 0 };
  for (let index = 1; index < samples.length; index += 1) {
    const from = samples[index - 1]!;
    const to = samples[index]!;
    const middle = (from.atMicros + to.atMicros) / 2;
    const side = after.includes(middle) ? "after" : rest.includes(middle) ? "rest" : undefined;
    if (side === undefined) continue;
    wall[side] += (to.atMicros - from.atMicros) / 1e6;
    for (const name of names) {
      const delta =
        name === "machine (every process)" ? to.machine - from.machine : to.processes[name]! - from.processes[name]!;
      used[side].set(name, (used[side].get(name) ?? 0) + Math.max(0, delta));
    }
  }
  return names.map((name) => ({
    name,
    afterChange: (used.after.get(name) ?? 0) / Math.max(wall.after, 1e-9),
    rest: (used.rest.get(name) ?? 0) / Math.max(wall.rest, 1e-9),
  }));
}

/** Each watched name with its pid and the pids whose nearest watched ancestor it is. */
function groupByWatchedAncestor(processes: Record<string, number>): Record<string, number[]> {
  const nameOf = new Map(Object.entries(processes).map(([name, pid]) => [pid, name]));
  const groups: Record<string, number[]> = Object.fromEntries(
    Object.entries(processes).map(([name, pid]) => [name, [pid]]),
  );
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone since the listing.
    }
  }
  for (const pid of parentOf.keys()) {
    if (nameOf.has(pid)) continue;
    for (let at = parentOf.get(pid); at !== undefined && at > 1; at = parentOf.get(at)) {
      const name = nameOf.get(at);
      if (name === undefined) continue;
      groups[name]!.push(pid);
      break;
    }
  }
  return groups;
}

/** Busy CPU seconds over every core since boot: /proc/stat's first line less idle and iowait. */
function machineBusySeconds(): number {
  // user nice system idle iowait irq softirq steal; guest time is counted in user already.
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  // USER_HZ, as measure.ts's cpuSeconds.
  return (total - idle) / 100;
}

/**
 * Nice 19 for every thread of `pids` and of the processes they started (Linux priorities are per
 * thread: setpriority on a pid alone changes only its main thread).
 */
export function lowerPriority(pids: number[]): void {
  const groups = groupByWatchedAncestor(Object.fromEntries(pids.map((pid) => [String(pid), pid])));
  for (const pid of Object.values(groups).flat())
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      try {
        setPriority(Number(thread), constants.priority.PRIORITY_LOW);
      } catch {
        // Gone since the listing.
      }
    }
}
