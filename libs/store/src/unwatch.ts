import { Cluster } from "ioredis";
import type { Redis } from "./createRedis.js";

/**
 * UNWATCH where the WATCH went. UNWATCH names no key, so a cluster client sends it to any node,
 * not necessarily the one holding the watched keys, and the watch would stay on that node's
 * connection until its next EXEC (which it would then fail). On a cluster it therefore goes to
 * every primary: the connection is the caller's own (WATCH belongs to it), so nothing else is
 * cleared. Only on the paths that give up before EXEC.
 */
export async function unwatch(redis: Redis): Promise<void> {
  if (redis instanceof Cluster) await Promise.all(redis.nodes("master").map((node) => node.unwatch()));
  else await redis.unwatch();
}
