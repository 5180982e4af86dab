export { findBinary } from "./findBinary.js";
export { freePort } from "./freePort.js";
export { startNats, type RunningNats, type StartNatsOptions } from "./nats.js";
export { isAlive, spawnManaged, stopPid, type ManagedProcess, type SpawnOptions } from "./process.js";
export { startRedis, type RunningRedis, type StartRedisOptions } from "./redis.js";
export { isListening } from "./tcp.js";
export { tempDir } from "./tempDir.js";
export { waitFor, type WaitForOptions } from "./waitFor.js";
export { startAnvil, type RunningAnvil, type StartAnvilOptions } from "./anvil.js";
export {
  ensureKafkaJars,
  startKafka,
  type KafkaSasl,
  type KafkaUser,
  type RunningKafka,
  type StartKafkaOptions,
} from "./kafka.js";
export {
  startKafkaCluster,
  type KafkaClusterNode,
  type RunningKafkaCluster,
  type StartKafkaClusterOptions,
} from "./kafkaCluster.js";
export { countSocketWrites } from "./socketWrites.js";
export {
  rpcRequest,
  startChopsticks,
  type BlockTimerState,
  type RunningChopsticks,
  type StartChopsticksOptions,
} from "./chopsticks/startChopsticks.js";
export { startFaultyProxy, type FaultMode, type FaultyProxy, type StartFaultyProxyOptions } from "./faultyProxy.js";
