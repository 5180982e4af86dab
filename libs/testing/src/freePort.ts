import { createServer } from "node:net";

/** Asks the kernel for a free loopback port, so parallel tests and a running stack never collide. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("freePort: the kernel gave no TCP address"));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
