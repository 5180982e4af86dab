import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import kafkajs from "kafkajs";
import { freePort } from "./freePort.js";
import { createScramUsers } from "./kafkaScramUsers.js";
import { type ManagedProcess, spawnManaged } from "./process.js";
import { waitFor } from "./waitFor.js";

export interface StartKafkaOptions {
  /** The client (PLAINTEXT) port; a free one when omitted. */
  port?: number;
  /** The KRaft controller port; a free one when omitted. Pass the same one again to restart. */
  controllerPort?: number;
  /** The broker's state: `server.properties` and the `kraft` log folder. Reused on restart. */
  dataDir: string;
  logFile: string;
  /** A detached broker outlives its parent (the local stack); tests keep theirs attached. */
  detached?: boolean;
  /** How long to wait for the broker to answer; 90 s by default. */
  timeoutMs?: number;
  /**
   * Credentials and ACLs: clients authenticate with SASL/SCRAM-SHA-512 and may do only what an ACL
   * grants (StandardAuthorizer, nothing allowed without one). Off by default (PLAINTEXT, no ACLs).
   */
  sasl?: KafkaSasl;
  /** An SSL listener instead of a plain one (not with `sasl`): PEM server certificate, key and CA. */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

/** A SCRAM user. Names and passwords are letters, digits, `.`, `_` and `-` only (they go into JAAS text and CreateScramUsers' input lines). */
export interface KafkaUser {
  username: string;
  password: string;
}

export interface KafkaSasl {
  /** The super user: the broker's own connections, and the admin that creates ACLs. */
  admin: KafkaUser;
  /**
   * Users created through the Admin API once the broker runs (createScramUsers: their passwords
   * on a program's standard input, never its arguments), at every start. They may do nothing
   * until ACLs grant it.
   */
  users?: KafkaUser[];
}

export interface RunningKafka {
  /** Bootstrap servers for kafkajs: `["127.0.0.1:<port>"]`. */
  brokers: string[];
  port: number;
  controllerPort: number;
  /** kafkajs' `sasl` option for the super user, when the broker was started with credentials. */
  sasl?: { mechanism: "scram-sha-512"; username: string; password: string };
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** deploy/local/kafka: pom.xml, install.sh, log4j2.properties, server.properties.template. */
const kafkaDeployDir = fileURLToPath(new URL("../../../deploy/local/kafka/", import.meta.url));

/**
 * Starts a single-node Kafka (KRaft, combined broker + controller) on loopback from the jars
 * that deploy/local/kafka/install.sh caches, and resolves once a client can describe the
 * cluster and list its topics. Starting again with the same ports and dataDir resumes the
 * same cluster with its topics and records.
 */
export async function startKafka(options: StartKafkaOptions): Promise<RunningKafka> {
  const libs = await ensureKafkaJars();
  const port = options.port ?? (await freePort());
  let controllerPort = options.controllerPort ?? (await freePort());
  while (controllerPort === port) controllerPort = await freePort();

  const logDir = join(options.dataDir, "kraft");
  mkdirSync(logDir, { recursive: true });
  const propertiesFile = join(options.dataDir, "server.properties");
  // With credentials it holds the super user's password: its owner's only.
  writeServerProperties(
    propertiesFile,
    serverProperties({
      port,
      controllerPort,
      logDir,
      sasl: options.sasl,
      tls: options.tls && { keystoreFile: pemKeystore(options.dataDir, options.tls), caFile: options.tls.caFile },
      node: singleNode(controllerPort),
    }),
  );

  const classpath = join(libs, "*");
  const cds = classDataSharing(dirname(libs), options.detached ?? false);
  if (!existsSync(join(logDir, "meta.properties"))) {
    await formatStorage({
      classpath,
      propertiesFile,
      logFile: options.logFile,
      jvmOptions: cds.readOnlyOptions,
      clusterId: randomClusterId(),
    });
  }

  const broker = spawnManaged({
    name: "kafka",
    command: javaBinary(),
    args: [...jvmOptions("512m"), ...cds.jvmOptions, "-cp", classpath, "kafka.Kafka", propertiesFile],
    logFile: options.logFile,
    detached: options.detached,
  });
  const stop = async () => {
    const exit = await stopGracefully(broker, 30_000);
    // A JVM killed by a signal may have left a half-written archive.
    cds.afterExit(typeof exit === "number");
  };

  const brokers = [`127.0.0.1:${port}`];
  const sasl = options.sasl && { mechanism: "scram-sha-512" as const, ...options.sasl.admin };
  try {
    if (options.sasl)
      await createScramUsers({
        java: javaBinary(),
        classpath,
        brokers: brokers.join(","),
        admin: options.sasl.admin,
        users: [options.sasl.admin, ...(options.sasl.users ?? [])],
        logFile: options.logFile,
      });
    await waitUntilServing({
      brokers,
      // A copy: kafkajs writes its authenticator into the object it is given.
      sasl: sasl && { ...sasl },
      ...(options.tls ? { ssl: { ca: [readFileSync(options.tls.caFile, "utf8")] } } : {}),
      nodes: [{ process: broker, logFile: options.logFile }],
      brokerCount: 1,
      timeoutMs: options.timeoutMs ?? 90_000,
    });
  } catch (error) {
    await stopGracefully(broker, 5_000);
    cds.afterExit(false);
    throw error;
  }
  return { brokers, port, controllerPort, ...(sasl ? { sasl } : {}), process: broker, stop };
}

/**
 * The folder holding the broker's runtime jars. Runs deploy/local/kafka/install.sh (which fetches
 * them from Maven Central once) unless its marker says this pom's jars are already cached.
 */
export async function ensureKafkaJars(): Promise<string> {
  const pom = readFileSync(join(kafkaDeployDir, "pom.xml"), "utf8");
  const version = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom)?.[1];
  if (version === undefined) throw new Error(`no <kafka.version> in ${join(kafkaDeployDir, "pom.xml")}`);
  const cacheDir = process.env.PLATFORM_CACHE_DIR ?? join(homedir(), ".cache", "chain-intents-platform");
  const home = join(cacheDir, `kafka-${version}`);
  const marker = join(home, ".installed");
  const checksum = createHash("sha256").update(pom).digest("hex");
  if (existsSync(marker) && readFileSync(marker, "utf8").trim() === checksum) return join(home, "libs");

  // The script's progress lines (stderr) are shown: a first fetch takes a while.
  const { code, stdout } = await run("bash", [join(kafkaDeployDir, "install.sh")], { showStderr: true });
  if (code !== 0) throw new Error(`deploy/local/kafka/install.sh failed with exit code ${code}`);
  const libs = stdout.trim().split("\n").at(-1);
  if (!libs) throw new Error("deploy/local/kafka/install.sh printed no libs folder");
  return libs;
}

/** What tells one node of a cluster from another; a single broker is node 1 of one. */
export interface KafkaNodeRole {
  nodeId: number;
  /** `controller.quorum.voters`: `<id>@127.0.0.1:<controller port>` of every node. */
  quorumVoters: string;
  replicationFactor: number;
  minInsyncReplicas: number;
}

function singleNode(controllerPort: number): KafkaNodeRole {
  return { nodeId: 1, quorumVoters: `1@127.0.0.1:${controllerPort}`, replicationFactor: 1, minInsyncReplicas: 1 };
}

/** Kafka's PEM keystore is one file: the private key, then the certificate chain. Its owner's only. */
function pemKeystore(dataDir: string, tls: { certFile: string; keyFile: string }): string {
  const file = join(dataDir, "keystore.pem");
  writeFileSync(file, readFileSync(tls.keyFile, "utf8") + readFileSync(tls.certFile, "utf8"), { mode: 0o600 });
  return file;
}

/** With credentials the file holds the super user's password: its owner's only. */
export function writeServerProperties(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function serverProperties(values: {
  port: number;
  controllerPort: number;
  logDir: string;
  sasl?: KafkaSasl | undefined;
  tls?: { keystoreFile: string; caFile: string } | undefined;
  node: KafkaNodeRole;
}): string {
  const read = (name: string) => readFileSync(join(kafkaDeployDir, name), "utf8");
  let listeners = read("listeners.plaintext.properties");
  if (values.tls)
    listeners = read("listeners.ssl.properties.template")
      .replaceAll("{{TLS_KEYSTORE}}", values.tls.keystoreFile)
      .replaceAll("{{TLS_CA}}", values.tls.caFile);
  if (values.sasl) {
    for (const user of [values.sasl.admin, ...(values.sasl.users ?? [])]) checkUser(user);
    listeners = read("listeners.sasl.properties.template")
      .replaceAll("{{ADMIN_USERNAME}}", values.sasl.admin.username)
      .replaceAll("{{ADMIN_PASSWORD}}", values.sasl.admin.password);
  }
  return read("server.properties.template")
    .replace("{{LISTENERS}}", listeners.trimEnd())
    .replaceAll("{{PORT}}", String(values.port))
    .replaceAll("{{CONTROLLER_PORT}}", String(values.controllerPort))
    .replaceAll("{{DATA_DIR}}", values.logDir)
    .replaceAll("{{NODE_ID}}", String(values.node.nodeId))
    .replaceAll("{{QUORUM_VOTERS}}", values.node.quorumVoters)
    .replaceAll("{{REPLICATION_FACTOR}}", String(values.node.replicationFactor))
    .replaceAll("{{MIN_INSYNC_REPLICAS}}", String(values.node.minInsyncReplicas));
}

/** Names and passwords end up inside quoted JAAS values and `[name=…,password=…]`: nothing that could break out. */
function checkUser(user: KafkaUser): void {
  const safe = /^[A-Za-z0-9._-]+$/;
  if (!safe.test(user.username))
    throw new Error(`kafka user name ${JSON.stringify(user.username)}: letters, digits, . _ - only`);
  // The password itself is never put in an error: it would end up in a test's output.
  if (!safe.test(user.password))
    throw new Error(`the password of kafka user ${user.username}: letters, digits, . _ - only`);
}

/**
 * Writes meta.properties and the bootstrap metadata. No SCRAM user here: `--add-scram` takes
 * passwords as arguments, which `ps` shows to every local user; createScramUsers makes them
 * after start instead. With static `controller.quorum.voters` (in the template) Kafka 4.x needs
 * neither `--standalone` nor `--initial-controllers`.
 */
export async function formatStorage(options: {
  classpath: string;
  propertiesFile: string;
  logFile: string;
  jvmOptions: string[];
  /** Every node of a cluster is formatted with the same one. */
  clusterId: string;
}): Promise<void> {
  const args = [
    ...jvmOptions("256m"),
    ...options.jvmOptions,
    "-cp",
    options.classpath,
    "kafka.tools.StorageTool",
    "format",
    "--cluster-id",
    options.clusterId,
    "--config",
    options.propertiesFile,
    "--ignore-formatted",
  ];
  const { code, stdout, stderr } = await run(javaBinary(), args);
  writeFileSync(options.logFile, stdout + stderr, { flag: "a" });
  if (code !== 0) {
    throw new Error(`kafka storage format failed with exit code ${code}`, { cause: new Error(stderr.slice(-4_000)) });
  }
}

/** A Kafka UUID as the StorageTool expects it: 16 random bytes, base64url without padding. */
export function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}

/** Small heap and fast start: C1 only, serial GC, class-data sharing, no perf-data file. */
export function jvmOptions(heap: string): string[] {
  return [
    `-Xmx${heap}`,
    "-Xms128m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Xshare:auto",
    "-XX:-UsePerfData",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djava.awt.headless=true",
    "-Djava.net.preferIPv4Stack=true",
    `-Dlog4j2.configurationFile=${join(kafkaDeployDir, "log4j2.properties")}`,
  ];
}

/**
 * Application class-data sharing: the JVM maps the classes the broker loads from an archive
 * instead of parsing ~40 jars, which takes about 1.5–2 s off every start. The first attached
 * start without an archive records one when the broker exits (that stop takes a few seconds
 * longer); later starts use it. The archive's name carries the JVM's identity, since an archive
 * only fits the JVM build that wrote it; install.sh drops the archives when it replaces the jars.
 */
export function classDataSharing(
  kafkaHome: string,
  detached: boolean,
): { jvmOptions: string[]; readOnlyOptions: string[]; afterExit(keep: boolean): void } {
  const none = { jvmOptions: [], readOnlyOptions: [], afterExit: () => undefined };
  const java = resolveJava();
  if (java === undefined) return none;
  const jvmId = createHash("sha256")
    .update(`${java}:${statSync(java).mtimeMs}`)
    .digest("hex")
    .slice(0, 12);
  const dir = join(kafkaHome, "cds");
  const archive = join(dir, `kafka-${jvmId}.jsa`);
  const quiet = ["-Xlog:cds=off", "-Xlog:cds+dynamic=off"];
  if (existsSync(archive)) {
    const use = [...quiet, `-XX:SharedArchiveFile=${archive}`];
    return { jvmOptions: use, readOnlyOptions: use, afterExit: () => undefined };
  }
  // A detached broker is stopped by another process, which could not move the archive in place.
  if (detached) return none;
  mkdirSync(dir, { recursive: true });
  removeStaleArchives(dir);
  const pending = `${archive}.${randomBytes(6).toString("hex")}.tmp`;
  return {
    jvmOptions: [...quiet, `-XX:ArchiveClassesAtExit=${pending}`],
    readOnlyOptions: [],
    afterExit(keep) {
      try {
        // rename() is atomic: parallel test workers never see a half-written archive.
        if (keep && existsSync(pending) && statSync(pending).size > 0) renameSync(pending, archive);
      } finally {
        rmSync(pending, { force: true });
      }
    },
  };
}

function removeStaleArchives(dir: string): void {
  const hourAgo = Date.now() - 3_600_000;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (name.endsWith(".tmp") && statSync(file).mtimeMs < hourAgo) rmSync(file, { force: true });
  }
}

/** The real path of the java binary that will run, or undefined when it cannot be found. */
function resolveJava(): string | undefined {
  const candidates = process.env.JAVA_HOME
    ? [join(process.env.JAVA_HOME, "bin", "java")]
    : (process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "java"));
  for (const candidate of candidates) {
    try {
      return realpathSync(candidate);
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * SIGTERM (Kafka shuts down cleanly), then SIGKILL after `graceMs`, without holding the event
 * loop open. Resolves with the exit code, or the signal's name when it was killed.
 */
export async function stopGracefully(managed: ManagedProcess, graceMs: number): Promise<number | string> {
  managed.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<true>((resolve) => {
    timer = setTimeout(() => resolve(true), graceMs);
    timer.unref();
  });
  const late = await Promise.race([managed.exited.then(() => false), timedOut]);
  clearTimeout(timer);
  if (late) managed.kill("SIGKILL");
  return managed.exited;
}

export function javaBinary(): string {
  const javaHome = process.env.JAVA_HOME;
  return javaHome ? join(javaHome, "bin", "java") : "java";
}

/**
 * Resolves once a client can describe the cluster, sees `brokerCount` brokers registered and can
 * list topics; rejects, with the node's log, as soon as one of `nodes` exits.
 */
export async function waitUntilServing(options: {
  brokers: string[];
  sasl: RunningKafka["sasl"];
  /** kafkajs' `ssl` option, for a broker with an SSL listener. */
  ssl?: { ca: string[] };
  nodes: { process: ManagedProcess; logFile: string }[];
  brokerCount: number;
  timeoutMs: number;
}): Promise<void> {
  const kafka = new kafkajs.Kafka({
    brokers: options.brokers,
    clientId: "start-kafka",
    ...(options.sasl ? { sasl: options.sasl } : {}),
    ...(options.ssl ? { ssl: options.ssl } : {}),
    logLevel: kafkajs.logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 5_000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin({ retry: { retries: 0 } });
  let settled = false;
  const died = Promise.race(options.nodes.map((node) => node.process.exited.then((code) => ({ node, code })))).then(
    ({ node, code }) => {
      if (settled) return;
      throw new Error(`kafka exited with ${code} while starting; see ${node.logFile}`, {
        cause: new Error(tail(node.logFile)),
      });
    },
  );
  const answered = waitFor(
    async () => {
      if (settled) throw new Error("kafka start abandoned");
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        if (cluster.brokers.length < options.brokerCount) return false;
        await admin.listTopics();
        return true;
      } catch {
        return false;
      }
    },
    { what: `kafka on ${options.brokers.join(",")}`, timeoutMs: options.timeoutMs, intervalMs: 100 },
  );
  try {
    await Promise.race([answered, died]);
  } finally {
    settled = true;
    answered.catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}

function tail(file: string, bytes = 4_000): string {
  try {
    return readFileSync(file, "utf8").slice(-bytes);
  } catch {
    return "";
  }
}

function run(
  command: string,
  args: string[],
  options: { showStderr?: boolean } = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", options.showStderr ? "inherit" : "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", (error) => reject(new Error(`could not run ${command}`, { cause: error })));
    child.once("close", (code, signal) => resolve({ code: code ?? signal ?? "unknown", stdout, stderr }));
  });
}
