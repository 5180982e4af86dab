/**
 * Counts the socket writes (`_write` and `_writev`, one system call each) a client's stream makes
 * while `run` runs: how tests show that commands left together or one by one.
 */
export async function countSocketWrites(stream: unknown, run: () => Promise<unknown>): Promise<number> {
  const socket = stream as { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
  const [write, writev] = [socket._write, socket._writev];
  let writes = 0;
  socket._write = function (this: unknown, ...args: unknown[]) {
    writes += 1;
    return write.apply(this, args);
  };
  socket._writev = function (this: unknown, ...args: unknown[]) {
    writes += 1;
    return writev.apply(this, args);
  };
  try {
    await run();
  } finally {
    socket._write = write;
    socket._writev = writev;
  }
  return writes;
}
