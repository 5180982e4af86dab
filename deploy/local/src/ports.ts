import { freePort } from "@platform/testing";

/** Every port the local stack binds on 127.0.0.1. */
export interface PortPlan {
  gateway: number;
  /** The gateway's /metrics and detailed /readyz (the public port gives only the status). */
  gatewayOps: number;
  redis: number;
  /** PostgreSQL, the history store (libs/history). */
  postgres: number;
  nats: number;
  kafka: number;
  kafkaController: number;
  anvilOrigin: number;
  anvilDestination: number;
  /** The real Subtensor runtime under chopsticks (Substrate JSON-RPC, WebSocket and HTTP). */
  subtensorNode: number;
  authGrpc: number;
  /** auth's key administration, apart from the port the gateway calls. */
  authAdminGrpc: number;
  tcGrpc: number;
  intentsGrpc: number;
  dataQueryGrpc: number;
  ingestorGrpc: number;
  projectorGrpc: number;
  authOps: number;
  tcOps: number;
  intentsOps: number;
  dataQueryOps: number;
  ingestorOps: number;
  projectorOps: number;
  /** The devnet simulator's /readyz. */
  simulatorOps: number;
  /** Prometheus, with STACK_OBSERVABILITY=1 (away from its usual 9090, so a system one is left alone). */
  prometheus: number;
}

// Away from the servers' usual ports, so a system Redis, PostgreSQL, NATS or Kafka on the same machine is left alone.
export const DEFAULT_PORTS: PortPlan = {
  gateway: 8080,
  gatewayOps: 9470,
  redis: 16379,
  postgres: 15432,
  nats: 14222,
  kafka: 19092,
  kafkaController: 19093,
  anvilOrigin: 18545,
  anvilDestination: 18546,
  subtensorNode: 19944,
  authGrpc: 50051,
  authAdminGrpc: 50061,
  tcGrpc: 50052,
  intentsGrpc: 50053,
  dataQueryGrpc: 50054,
  ingestorGrpc: 50055,
  projectorGrpc: 50056,
  authOps: 9471,
  tcOps: 9472,
  intentsOps: 9473,
  dataQueryOps: 9474,
  ingestorOps: 9475,
  projectorOps: 9476,
  simulatorOps: 9477,
  prometheus: 19090,
};

/** `anvilOrigin` → `STACK_PORT_ANVIL_ORIGIN`. */
export function portVariable(name: keyof PortPlan): string {
  return `STACK_PORT_${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;
}

/** The default plan with any `STACK_PORT_*` overrides; a malformed override stops the launcher naming it. */
export function configuredPorts(env: NodeJS.ProcessEnv = process.env): PortPlan {
  const plan = { ...DEFAULT_PORTS };
  for (const name of Object.keys(plan) as Array<keyof PortPlan>) {
    const raw = env[portVariable(name)];
    if (raw === undefined || raw === "") continue;
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`${portVariable(name)}: must be a TCP port between 1 and 65535 (got ${JSON.stringify(raw)})`);
    }
    plan[name] = port;
  }
  return plan;
}

/** A plan of free ports, so tests never collide with a running stack or with each other. */
export async function freePorts(): Promise<PortPlan> {
  const plan = { ...DEFAULT_PORTS };
  for (const name of Object.keys(plan) as Array<keyof PortPlan>) plan[name] = await freePort();
  return plan;
}
