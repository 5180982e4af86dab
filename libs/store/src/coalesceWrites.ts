import { forEachNode, type Redis, type RedisNode } from "./createRedis.js";

/**
 * Makes every command (and every pipeline) sent on `redis` within one turn of the event loop leave
 * in a single socket write: the first command of a turn corks the socket and a `setImmediate`
 * (which runs once this turn's I/O callbacks, and the promise chains they started, are done)
 * uncorks it. Concurrent requests whose commands start in the same turn then share one `writev`
 * system call instead of one `write` each, and Redis reads them in one go (less CPU per request in
 * data-query and Redis, as bench/data measures). Replies are unchanged: Redis answers in
 * order, and ioredis queues the commands exactly as before; only the moment the bytes leave moves
 * to the end of the current turn.
 *
 * On a cluster, each node connection coalesces its own commands (every node's socket is corked
 * on its first command of the turn), including the node connections the cluster opens later.
 *
 * Returns a function that restores the plain behaviour (tests).
 */
export function coalesceWrites(redis: Redis): () => void {
  const restores: (() => void)[] = [];
  forEachNode(redis, (node) => restores.push(coalesceNode(node)));
  return () => {
    for (const restore of restores.splice(0)) restore();
  };
}

function coalesceNode(redis: RedisNode): () => void {
  const send = redis.sendCommand;
  let corked: RedisNode["stream"] | undefined;
  const release = () => {
    const socket = corked;
    corked = undefined;
    socket?.uncork();
  };
  redis.sendCommand = function sendCoalesced(this: RedisNode, ...args: Parameters<RedisNode["sendCommand"]>) {
    // ioredis replaces its socket on every reconnect, and has none before the first connect.
    const socket = redis.stream as RedisNode["stream"] | undefined;
    if (corked === undefined && socket?.writable === true) {
      socket.cork();
      corked = socket;
      setImmediate(release);
    }
    return send.apply(this, args);
  } as RedisNode["sendCommand"];
  return () => {
    redis.sendCommand = send;
    release();
  };
}
