import { expect, test } from "vitest";
import { DEPLOYABLES } from "./deployables.js";
import { kafkaAclCommands, kafkaGrantOf } from "./kafkaAcls.js";

test("every Deployment that uses Kafka has a grant, and each projector and ingestor source only its own part", () => {
  for (const deployable of DEPLOYABLES)
    expect(kafkaGrantOf(deployable) !== undefined, deployable.name).toBe(deployable.uses.kafka === true);
  const byName = (name: string) => kafkaGrantOf(DEPLOYABLES.find((deployable) => deployable.name === name)!)!;
  expect(byName("projector-accounts")).toMatchObject({
    consumes: ["chain.network.v1"],
    groups: ["projector-accounts"],
  });
  // The price source's removals travel with its rounds: it may not write chain.network.v1.
  expect(byName("chain-ingestor-price").produces).toEqual(["oracle.prices.v1", "ingestor.checkpoints.v1"]);
  expect(byName("chain-ingestor-price").owns).not.toContain("chain.network.v1");
  expect(byName("chain-ingestor-native").produces).not.toContain("chain.intents.v1");
});

test("the kafka-acls.sh commands name each Deployment's user and one resource each", () => {
  const commands = kafkaAclCommands();
  expect(commands).toContain(
    'kafka-acls.sh --bootstrap-server "$KAFKA_BOOTSTRAP" --command-config "$KAFKA_ADMIN_CONFIG" --add --allow-principal User:projector-market --operation Read --group projector-market',
  );
  expect(commands).toContain(
    'kafka-acls.sh --bootstrap-server "$KAFKA_BOOTSTRAP" --command-config "$KAFKA_ADMIN_CONFIG" --add --allow-principal User:chain-ingestor-native --operation Write --transactional-id chain-ingestor-native- --resource-pattern-type prefixed',
  );
  expect(commands.some((command) => command.includes("User:gateway") || command.includes("User:data-query"))).toBe(
    false,
  );
  // Only the topics Job's user creates topics or changes their configs.
  const creating = commands.filter((command) => /--operation (Create|AlterConfigs)/.test(command));
  expect(creating.length).toBeGreaterThan(0);
  for (const command of creating) expect(command).toContain("--allow-principal User:topics ");
  expect(commands).toContain(
    'kafka-acls.sh --bootstrap-server "$KAFKA_BOOTSTRAP" --command-config "$KAFKA_ADMIN_CONFIG" --add --allow-principal User:topics --operation Describe --operation Create --operation AlterConfigs --topic chain.network.v1',
  );
});
