import { subjects } from "./subjects.js";

/** The services that talk to NATS, each as a user of the same name. */
export type NatsUser = "gateway" | "data-query" | "intents-gateway" | "projector" | "chain-ingestor";

export const NATS_USERS: readonly NatsUser[] = [
  "gateway",
  "data-query",
  "intents-gateway",
  "projector",
  "chain-ingestor",
];

/** Subjects a user may publish to and subscribe to (NATS wildcards allowed). */
export interface NatsGrant {
  publish: readonly string[];
  subscribe: readonly string[];
}

/** The projections that publish their change signal (projector: intents, accounts, market and subnets). */
const PROJECTIONS = ["intents", "accounts", "market", "subnets"] as const;

/**
 * Who publishes and who listens to which signal (subjects.ts). No service makes requests (no
 * `_INBOX.>`), and none uses JetStream's API (`$JS.API.>`): signals are plain core NATS messages.
 */
export const NATS_PERMISSIONS: Readonly<Record<NatsUser, NatsGrant>> = {
  // Publishes each projection's signal after its commit.
  projector: { publish: PROJECTIONS.map((projection) => subjects.readModelChanged(projection)), subscribe: [] },
  // Publishes a notified transaction's hint; wakes its intents change-log reader on the intents signal.
  "intents-gateway": {
    publish: [subjects.intentsNotified],
    subscribe: [subjects.readModelChanged("intents")],
  },
  // The intents source looks a notified transaction's receipt up at once.
  "chain-ingestor": { publish: [], subscribe: [subjects.intentsNotified] },
  // The events group wakes its data change-log reader on every signal.
  "data-query": { publish: [], subscribe: [subjects.readModelChanged("*")] },
  // Conditional Data API reads: every projection's signal.
  gateway: { publish: [], subscribe: [subjects.readModelChanged("*")] },
};

/**
 * The `authorization` block of a nats-server configuration: an `admin` user with every subject
 * (operators and tests), and each service's user with its grant. A connection without credentials
 * is refused. nats-server takes passwords in clear or bcrypt-hashed: the file is a secret.
 */
export function natsAuthorization(adminPassword: string, passwords: Readonly<Record<NatsUser, string>>): string {
  const users = [
    `    { user: "admin", password: ${JSON.stringify(adminPassword)} }`,
    ...NATS_USERS.map(
      (name) =>
        `    { user: ${JSON.stringify(name)}, password: ${JSON.stringify(passwords[name])}, permissions: ${permissionsOf(NATS_PERMISSIONS[name])} }`,
    ),
  ];
  return `authorization {\n  users = [\n${users.join("\n")}\n  ]\n}\n`;
}

/** An empty allow list would allow everything: nothing is written as deny-all. */
function permissionsOf(grant: NatsGrant): string {
  const side = (subjectsAllowed: readonly string[]) =>
    subjectsAllowed.length === 0
      ? `{ deny: [">"] }`
      : `{ allow: [${subjectsAllowed.map((subject) => JSON.stringify(subject)).join(", ")}] }`;
  return `{ publish: ${side(grant.publish)}, subscribe: ${side(grant.subscribe)} }`;
}
