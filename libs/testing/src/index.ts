export { type RunningAnvil, type StartAnvilOptions, startAnvil } from "./anvil.js";
export type { ChainBlock } from "./chopsticks/chainBlocks.js";
export {
  type BlockTimerState,
  type RunningChopsticks,
  rpcRequest,
  type StartChopsticksOptions,
  startChopsticks,
} from "./chopsticks/startChopsticks.js";
export { type FaultMode, type FaultyProxy, type StartFaultyProxyOptions, startFaultyProxy } from "./faultyProxy.js";
export { findBinary } from "./findBinary.js";
export { freePort } from "./freePort.js";
export {
  ensureKafkaJars,
  type KafkaSasl,
  type KafkaUser,
  type RunningKafka,
  type StartKafkaOptions,
  startKafka,
} from "./kafka.js";
export {
  type KafkaClusterNode,
  type RunningKafkaCluster,
  type StartKafkaClusterOptions,
  startKafkaCluster,
} from "./kafkaCluster.js";
export { type RunningNats, type StartNatsOptions, startNats } from "./nats.js";
export {
  postgresBinDir,
  type RunningPostgres,
  type StartPostgresOptions,
  startPostgres,
  takeBaseBackup,
} from "./postgres.js";
export { isAlive, type ManagedProcess, type SpawnOptions, spawnManaged, stopPid } from "./process.js";
export { type RunningRedis, type StartRedisOptions, startRedis } from "./redis.js";
export {
  parseClusterNodes,
  type RedisClusterMember,
  type RedisClusterNode,
  type RunningRedisCluster,
  type StartRedisClusterOptions,
  startRedisCluster,
} from "./redisCluster.js";
export { countSocketWrites } from "./socketWrites.js";
export { isListening } from "./tcp.js";
export { tempDir } from "./tempDir.js";
export { makeTestCertificates, type TestCertificates } from "./testCertificates.js";
export { type WaitForOptions, waitFor } from "./waitFor.js";
