/** Subjects a user may publish to and subscribe to (NATS wildcards allowed). */
export interface NatsGrant {
  publish: readonly string[];
  subscribe: readonly string[];
}

/** A NATS user: its name, password and grant. */
export interface NatsUserEntry {
  name: string;
  password: string;
  grant: NatsGrant;
}

/**
 * The `authorization` block of a nats-server configuration: an `admin` user with every subject
 * (operators and tests), and each given user with its grant (libs/grants renders the platform's).
 * A connection without credentials is refused. nats-server takes passwords in clear or
 * bcrypt-hashed: the file is a secret.
 */
export function natsAuthorization(adminPassword: string, users: readonly NatsUserEntry[]): string {
  const lines = [
    `    { user: "admin", password: ${JSON.stringify(adminPassword)} }`,
    ...users.map(
      (user) =>
        `    { user: ${JSON.stringify(user.name)}, password: ${JSON.stringify(user.password)}, permissions: ${permissionsOf(user.grant)} }`,
    ),
  ];
  return `authorization {\n  users = [\n${lines.join("\n")}\n  ]\n}\n`;
}

/** An empty allow list would allow everything: nothing is written as deny-all. */
function permissionsOf(grant: NatsGrant): string {
  const side = (subjectsAllowed: readonly string[]) =>
    subjectsAllowed.length === 0
      ? `{ deny: [">"] }`
      : `{ allow: [${subjectsAllowed.map((subject) => JSON.stringify(subject)).join(", ")}] }`;
  return `{ publish: ${side(grant.publish)}, subscribe: ${side(grant.subscribe)} }`;
}
