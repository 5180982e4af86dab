import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface ChainDescriptor {
  name: string;
  chainId: number;
  rpcUrl: string;
  contracts: Record<string, string>;
  /** Test tokens deployed on the chain, by symbol. */
  tokens: Record<string, string>;
}

export interface ProcessDescriptor {
  name: string;
  pid: number;
  logFile: string;
  /** Services only: where /readyz and /metrics answer. */
  opsUrl?: string;
  grpcTarget?: string;
  /** auth only: its key administration (AuthAdminService), which the CLI uses. */
  adminGrpcTarget?: string;
}

/** The native network's Substrate side: the real runtime under chopsticks, and accounts with activity. */
export interface SubstrateDescriptor {
  name: string;
  /** The network's EVM chain id (`EVMChainId`), which its records carry. */
  chainId: number;
  rpcUrl: string;
  httpUrl: string;
  /** The node's block timer; 0 when blocks come only on demand (`dev_newBlock`). */
  blockTimeMs: number;
  specVersion: number;
  /** Seeded accounts with activity (SS58; the EVM one with its H160), and the subnets the seed registered. */
  demoAccounts: { name: string; role: string; ss58: string; publicKey: string; evmH160?: string }[];
  netuids: number[];
}

/**
 * The servers' addresses, without credentials: every service has its own user on Redis and NATS
 * (`<stateDir>/secrets/<service>-redis/`, `-nats/`). The admin URLs, with the `admin` user's
 * password in them, are for tests and tools (redis-cli -u); absent when the servers were given from
 * outside (STACK_REDIS_URL, STACK_NATS_URL). Never printed (summary.ts).
 */
export interface InfrastructureDescriptor {
  kafkaBrokers: string[];
  redisUrl: string;
  /** The read models' Redis Cluster (`host:port,…`), when the stack runs one (`redisCluster`). */
  redisClusterNodes?: string;
  natsUrl: string;
  /**
   * The history database (`postgres://host:port/platform`, without credentials): each service's
   * role's password is in `<stateDir>/secrets/<service>-postgres/password`, every one of them in
   * the PGPASSFILE `<stateDir>/secrets/postgres-client/pgpass`. Absent on a stack that had none.
   */
  postgresUrl?: string;
  redisAdminUrl?: string;
  natsAdminUrl?: string;
}

/** A URL tests and tools may do anything with on the stack's Redis. */
export function redisAdminUrl(descriptor: StackDescriptor): string {
  return descriptor.infrastructure.redisAdminUrl ?? descriptor.infrastructure.redisUrl;
}

/** `.local/stack.json`: what tools, tests and people need to talk to a running stack. */
export interface StackDescriptor {
  startedAt: string;
  gatewayUrl: string;
  chains: ChainDescriptor[];
  substrate?: SubstrateDescriptor;
  infrastructure: InfrastructureDescriptor;
  /**
   * The stack's Kafka super user, for tools and tests that read or write topics directly (no
   * service has it: each has its own user, libs/bus kafkaAcl.ts). Absent on an external Kafka.
   */
  kafkaAdmin?: { username: string; password: string };
  /** The stack's Prometheus (STACK_OBSERVABILITY=1), with the platform's alert rules loaded. */
  prometheusUrl?: string;
  /** The demo API key, once the auth service issues keys. */
  demoApiKey?: { id: string; secret: string; scopes: string[] };
  processes: ProcessDescriptor[];
  stateDir: string;
}

export function descriptorPath(stateDir: string): string {
  return join(stateDir, "stack.json");
}

/** Written atomically (temp file, then rename), so a reader never sees half a descriptor. */
export function writeDescriptor(stateDir: string, descriptor: StackDescriptor): void {
  const path = descriptorPath(stateDir);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, `${JSON.stringify(descriptor, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

export function readDescriptor(stateDir: string): StackDescriptor | undefined {
  const path = descriptorPath(stateDir);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, "utf8")) as StackDescriptor;
}
