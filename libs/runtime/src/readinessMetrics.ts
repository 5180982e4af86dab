import { Counter, Gauge, type Registry } from "prom-client";
import type { Readiness, ReadinessSnapshot } from "./readiness.js";

/** What the readiness gauges show after a snapshot, and whether readiness flipped since the last one. */
export interface ReadinessReading {
  ready: number;
  dependencies: Record<string, number>;
  /** True when readiness changed from the previous snapshot; never for the first one (a start is no flap). */
  transition: boolean;
}

/** Pure: the reading of `snapshot` after `previous` (undefined before the first probe round). */
export function readReadiness(previous: boolean | undefined, snapshot: ReadinessSnapshot): ReadinessReading {
  return {
    ready: snapshot.ready ? 1 : 0,
    dependencies: Object.fromEntries(Object.entries(snapshot.checks).map(([name, state]) => [name, state.ok ? 1 : 0])),
    transition: previous !== undefined && previous !== snapshot.ready,
  };
}

/**
 * Exports a readiness watcher's state on `registry`: `service_ready`, `service_readiness_changes_total`
 * (flapping) and `service_dependency_up{dependency}`. The gauges start at 0 (a process is not ready
 * before its first probe round) and follow every change the watcher reports.
 */
export function exportReadinessMetrics(readiness: Readiness, registry: Registry): void {
  const ready = once(
    registry,
    "service_ready",
    () =>
      new Gauge({
        name: "service_ready",
        help: "1 while the process is ready (every required dependency answered its last probe), 0 while it is not.",
        registers: [registry],
      }),
  );
  const changes = once(
    registry,
    "service_readiness_changes_total",
    () =>
      new Counter({
        name: "service_readiness_changes_total",
        help: "Transitions between ready and not ready, after the first probe round (becoming ready at start is not counted).",
        registers: [registry],
      }),
  );
  const up = once(
    registry,
    "service_dependency_up",
    () =>
      new Gauge({
        name: "service_dependency_up",
        help: "1 while the dependency answered its last readiness probe, 0 while it did not (required or not).",
        labelNames: ["dependency"],
        registers: [registry],
      }),
  );
  let previous: boolean | undefined;
  const show = (snapshot: ReadinessSnapshot) => {
    const reading = readReadiness(previous, snapshot);
    previous = snapshot.ready;
    ready.set(reading.ready);
    if (reading.transition) changes.inc();
    for (const [dependency, value] of Object.entries(reading.dependencies)) up.set({ dependency }, value);
  };
  // Before the first round every dependency reads as down: show it, without counting a transition.
  const initial = readiness.snapshot();
  ready.set(0);
  changes.inc(0);
  for (const name of Object.keys(initial.checks)) up.set({ dependency: name }, 0);
  readiness.onChange(show);
}

function once<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}
