import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "./freePort.js";

const ephemeralStart = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("freePort", () => {
  it("hands out distinct ports below the kernel's ephemeral range, where no outgoing connection lands", async () => {
    const ports = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralStart);
    }
  });

  it("hands out only ports nothing listens on, each one bindable at once", async () => {
    const held: Server[] = [];
    try {
      // Occupy the next candidates behind the cursor: the picks must step over every one of them.
      const probe = await freePort();
      for (let port = probe + 1; port <= probe + 5; port++) held.push(await listen(port).catch(() => createServer()));
      const picked = await freePort();
      expect(held.map((server) => (server.address() as { port: number } | null)?.port)).not.toContain(picked);
      const server = await listen(picked);
      held.push(server);
    } finally {
      await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});
