import { describe, expect, it } from "vitest";
import { serverProperties } from "./kafka.js";

/** The properties as Kafka reads them: the last value of each key, comments and blank lines dropped. */
function parse(text: string): Map<string, string> {
  const entries = text
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)] as const);
  return new Map(entries);
}

const replication = [
  "default.replication.factor",
  "min.insync.replicas",
  "offsets.topic.replication.factor",
  "transaction.state.log.replication.factor",
  "transaction.state.log.min.isr",
];

describe("serverProperties", () => {
  it("one node: node 1, the only voter, every replication factor and minimum 1, no placeholder left", () => {
    const text = serverProperties({
      port: 19092,
      controllerPort: 19093,
      logDir: "/data/kraft",
      node: { nodeId: 1, quorumVoters: "1@127.0.0.1:19093", replicationFactor: 1, minInsyncReplicas: 1 },
    });
    const properties = parse(text);
    expect([...properties.values()].filter((value) => value.includes("{{"))).toEqual([]);
    expect(properties.get("node.id")).toBe("1");
    expect(properties.get("controller.quorum.voters")).toBe("1@127.0.0.1:19093");
    expect(replication.map((name) => properties.get(name))).toEqual(["1", "1", "1", "1", "1"]);
    expect(properties.get("listeners")).toBe("PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093");
  });

  it("a node of three: its own id, all three voters, replication 3 and in-sync minimum 2 for topics and the internal ones", () => {
    const properties = parse(
      serverProperties({
        port: 20002,
        controllerPort: 20012,
        logDir: "/data/node-2/kraft",
        sasl: { admin: { username: "admin", password: "admin-password-1" } },
        node: {
          nodeId: 2,
          quorumVoters: "1@127.0.0.1:20011,2@127.0.0.1:20012,3@127.0.0.1:20013",
          replicationFactor: 3,
          minInsyncReplicas: 2,
        },
      }),
    );
    expect(properties.get("node.id")).toBe("2");
    expect(properties.get("controller.quorum.voters")).toBe("1@127.0.0.1:20011,2@127.0.0.1:20012,3@127.0.0.1:20013");
    expect(replication.map((name) => properties.get(name))).toEqual(["3", "2", "3", "3", "2"]);
    expect(properties.get("advertised.listeners")).toBe("CLIENT://127.0.0.1:20002");
    expect(properties.get("authorizer.class.name")).toBe("org.apache.kafka.metadata.authorizer.StandardAuthorizer");
  });
});
