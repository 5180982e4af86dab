import { setTimeout as sleep } from "node:timers/promises";

export interface DependencyCheck {
  /** Shown in /readyz bodies and logs: "redis", "kafka", "nats", "grpc:auth"... */
  name: string;
  /** Resolves true when the dependency answers. Must settle within its own timeout and not throw. */
  probe: () => Promise<boolean>;
  /**
   * False for a dependency the service can be useful without: it is probed and listed, but its
   * being down leaves the service ready. The gateway's backends are such: one backend down should
   * fail that backend's routes (503), not take every gateway pod out of its load balancer.
   * True by default.
   */
  required?: boolean;
}

export interface DependencyState {
  ok: boolean;
  /** Whether readiness depends on it (see DependencyCheck.required). */
  required: boolean;
  /** ISO time of the last change, so an operator sees how long something has been down. */
  since: string;
}

export interface ReadinessSnapshot {
  ready: boolean;
  checks: Record<string, DependencyState>;
}

export interface Readiness {
  snapshot(): ReadinessSnapshot;
  /** Called after any dependency changes state (and once after the first round). */
  onChange(listener: (snapshot: ReadinessSnapshot) => void): void;
  /** Probes every dependency now, instead of waiting for the next round. */
  refresh(): Promise<ReadinessSnapshot>;
  stop(): void;
}

/**
 * Probes each dependency on a fixed cadence. Readiness is derived, never set by hand: a service is
 * ready exactly when every required dependency answered its last probe, so recovery needs no operator.
 */
export function watchDependencies(checks: DependencyCheck[], intervalMs = 1_000): Readiness {
  const states = new Map<string, DependencyState>(
    checks.map((check) => [
      check.name,
      { ok: false, required: check.required ?? true, since: new Date().toISOString() },
    ]),
  );
  const listeners: Array<(snapshot: ReadinessSnapshot) => void> = [];
  let stopped = false;
  let firstRound = true;

  const snapshot = (): ReadinessSnapshot => {
    const entries = [...states.entries()];
    return { ready: entries.every(([, state]) => state.ok || !state.required), checks: Object.fromEntries(entries) };
  };

  const probeOnce = async (check: DependencyCheck): Promise<boolean> => {
    try {
      return await check.probe();
    } catch {
      return false;
    }
  };

  const refresh = async (): Promise<ReadinessSnapshot> => {
    const results = await Promise.all(checks.map(async (check) => [check.name, await probeOnce(check)] as const));
    let changed = firstRound;
    firstRound = false;
    for (const [name, ok] of results) {
      const previous = states.get(name)!;
      if (previous.ok !== ok) {
        states.set(name, { ...previous, ok, since: new Date().toISOString() });
        changed = true;
      }
    }
    const current = snapshot();
    if (changed) for (const listener of listeners) listener(current);
    return current;
  };

  void (async () => {
    while (!stopped) {
      await refresh();
      await sleep(intervalMs);
    }
  })();

  return {
    snapshot,
    refresh,
    onChange: (listener) => listeners.push(listener),
    stop: () => {
      stopped = true;
    },
  };
}
