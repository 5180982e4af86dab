import type { Admin } from "kafkajs";

interface Probe {
  startedAt: number;
  answer: Promise<boolean>;
}

const inFlight = new WeakMap<Admin, Probe>();

/**
 * Answers whether the broker serves requests, within `timeoutMs`, for /readyz: true once the
 * admin can connect and describe the cluster, false on any error or when the answer is late.
 * Never throws. A probe outliving its timeout (kafkajs retrying a down broker) is shared by the
 * calls that follow until it is older than `timeoutMs`, so probes never pile up, yet a broker
 * that is back is seen at the next call. Give it an admin of its own.
 */
export async function kafkaReadiness(admin: Admin, timeoutMs: number): Promise<boolean> {
  const now = Date.now();
  let probe = inFlight.get(admin);
  if (probe === undefined || now - probe.startedAt >= timeoutMs) {
    const started: Probe = { startedAt: now, answer: describe(admin) };
    void started.answer.finally(() => {
      if (inFlight.get(admin) === started) inFlight.delete(admin);
    });
    inFlight.set(admin, started);
    probe = started;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
    timer.unref();
  });
  try {
    return await Promise.race([probe.answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function describe(admin: Admin): Promise<boolean> {
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0;
  } catch {
    return false;
  }
}
