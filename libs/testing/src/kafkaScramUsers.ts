import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** kafka.ts' KafkaUser, restated: this module is imported by kafka.ts. */
interface KafkaUser {
  username: string;
  password: string;
}

/** deploy/local/kafka/CreateScramUsers.java: a single-file Java program the JVM compiles as it starts. */
const program = fileURLToPath(new URL("../../../deploy/local/kafka/CreateScramUsers.java", import.meta.url));

/**
 * Creates the SCRAM-SHA-512 users of a running KRaft cluster through the Admin API
 * (AlterUserScramCredentials, as the super user with PLAIN, which the broker gives it alone). Every
 * password travels on the program's standard input: none is an argument (`ps` would show it,
 * as it did the storage format's `--add-scram`) or a file. The super user is among `users`: the
 * broker's own inter-broker connections authenticate with SCRAM, and wait for it to exist.
 */
export async function createScramUsers(options: {
  java: string;
  classpath: string;
  /** `host:port` of the brokers, comma separated. */
  brokers: string;
  admin: KafkaUser;
  users: readonly KafkaUser[];
  logFile: string;
}): Promise<void> {
  const input = [options.admin, ...options.users].map((user) => `${user.username} ${user.password}\n`).join("");
  const { code, output } = await new Promise<{ code: number | string; output: string }>((resolve, reject) => {
    const child = spawn(
      options.java,
      ["-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", options.classpath, program, options.brokers],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.once("error", (error) => reject(new Error(`could not run ${options.java}`, { cause: error })));
    child.once("close", (exit, signal) => resolve({ code: exit ?? signal ?? "unknown", output }));
    child.stdin.end(input);
  });
  // Nothing here should echo a password; redacted all the same before it reaches a log or an error.
  const redacted = [options.admin, ...options.users].reduce(
    (clean, user) => clean.replaceAll(user.password, "<redacted>"),
    output,
  );
  writeFileSync(options.logFile, redacted, { flag: "a" });
  if (code !== 0)
    throw new Error(`creating the kafka SCRAM users failed with exit code ${code}`, {
      cause: new Error(redacted.slice(-4_000)),
    });
}
