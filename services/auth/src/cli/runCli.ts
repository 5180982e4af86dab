import { Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { AppError, ERROR_CODE_KEY } from "@platform/errors";
import { callUnary, createGrpcClient } from "@platform/grpc";
import { AuthAdminServiceClient } from "@platform/proto/auth/v1/auth";
import { generateSigningKeyFile, writeSigningKeyFile } from "../tokens/signingKeyFile.js";
import { resolveAuthTarget, TargetError } from "./authTarget.js";
import { type CliCommand, parseCommand, USAGE, UsageError } from "./parseCommand.js";
import { describeKey, keyJson, keyTable, refreshTokenJson, refreshTokenTable } from "./render.js";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

/** Admin calls publish to Kafka and wait for the registry (up to ~10 s): give them room. */
const CALL_DEADLINE_MS = 30_000;

/** Runs one CLI invocation; resolves with the exit code (0 ok, 1 failed, 2 bad input). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: CliCommand;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`cli: ${error.message}`);
      return 2;
    }
    throw error;
  }
  try {
    await execute(command, io);
    return 0;
  } catch (error) {
    io.err(`cli: ${failureLine(error)}`);
    return error instanceof UsageError ? 2 : 1;
  }
}

async function execute(command: CliCommand, io: CliIo): Promise<void> {
  switch (command.kind) {
    case "help":
      io.out(USAGE);
      return;
    case "signing-keys generate": {
      const file = generateSigningKeyFile(command.activeFrom);
      let path: string;
      try {
        path = writeSigningKeyFile(command.dir, file);
      } catch (error) {
        throw new Error(
          `cannot write into ${command.dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
      }
      io.out(
        command.json
          ? JSON.stringify({ kid: file.kid, activeFrom: file.activeFrom, path })
          : `Wrote signing key ${file.kid} (signs from ${file.activeFrom}) to ${path}`,
      );
      return;
    }
    default:
      await withAuth(io, (auth) => admin(command, auth, io));
  }
}

type Auth = InstanceType<typeof AuthAdminServiceClient>;

async function admin(
  command: Exclude<CliCommand, { kind: "help" | "signing-keys generate" }>,
  auth: Auth,
  io: CliIo,
): Promise<void> {
  const call = <Req, Res>(method: Parameters<typeof callUnary<Req, Res>>[1], request: Req) =>
    callUnary<Req, Res>(auth, method, request, new Metadata());
  switch (command.kind) {
    case "keys create": {
      const { key, secret } = await call(auth.createApiKey, {
        name: command.name,
        scopes: command.scopes,
        tier: command.tier,
        kind: command.keyKind,
        allowedOrigins: command.origins,
      });
      if (key === undefined) throw new Error("auth answered without the key");
      io.out(
        command.json
          ? JSON.stringify({ id: key.id, secret })
          : key.kind === "browser"
            ? `Created browser key ${describeKey(key)}\nPublishable secret (pk_, for web pages on those origins only; shown only now): ${secret}`
            : `Created API key ${describeKey(key)}\nSecret (shown only now, store it safely; never ship it to a web page): ${secret}`,
      );
      return;
    }
    case "keys list": {
      const { keys } = await call(auth.listApiKeys, { includeRevoked: command.all });
      io.out(command.json ? JSON.stringify(keys.map(keyJson), null, 2) : keyTable(keys));
      return;
    }
    case "keys revoke": {
      const { key } = await call(auth.revokeApiKey, { id: command.id, reason: command.reason });
      if (key === undefined) throw new Error("auth answered without the key");
      io.out(
        command.json
          ? JSON.stringify(keyJson(key))
          : `Revoked API key ${describeKey(key)}; its tokens stop working within seconds`,
      );
      return;
    }
    case "keys rotate": {
      const { key, secret } = await call(auth.rotateApiKeySecret, { id: command.id });
      if (key === undefined) throw new Error("auth answered without the key");
      io.out(
        command.json
          ? JSON.stringify({ id: key.id, secret })
          : `Rotated the secret of API key ${describeKey(key)}; the old secret and its refresh tokens no longer work\nNew secret (shown only now, store it safely): ${secret}`,
      );
      return;
    }
    case "refresh-tokens list": {
      const { tokens } = await call(auth.listRefreshTokens, { keyId: command.keyId });
      io.out(command.json ? JSON.stringify(tokens.map(refreshTokenJson), null, 2) : refreshTokenTable(tokens));
      return;
    }
    case "refresh-tokens revoke": {
      const { token } = await call(auth.revokeRefreshToken, {
        keyId: command.keyId,
        token: command.token,
        reason: command.reason,
      });
      if (token === undefined) throw new Error("auth answered without the token");
      io.out(
        command.json
          ? JSON.stringify(refreshTokenJson(token))
          : `Revoked refresh token ${token.id} of API key ${token.keyId}; the key and its other tokens keep working`,
      );
      return;
    }
  }
}

async function withAuth(io: CliIo, work: (auth: Auth) => Promise<void>): Promise<void> {
  const target = resolveAuthTarget(io.env);
  const auth = createGrpcClient(AuthAdminServiceClient, { target, deadlineMs: CALL_DEADLINE_MS });
  try {
    await work(auth);
  } catch (error) {
    if (error instanceof AppError && isTransportFailure(error)) {
      throw new Error(
        error.grpcStatus === status.DEADLINE_EXCEEDED
          ? `auth at ${target} did not answer in time`
          : `auth is not reachable at ${target} (is it running?)`,
      );
    }
    throw error;
  } finally {
    auth.close();
  }
}

/** A failure of the connection rather than an answer of auth (which always names its code). */
function isTransportFailure(error: AppError): boolean {
  const metadata = (error.cause as Partial<ServiceError> | undefined)?.metadata;
  return (
    (error.grpcStatus === status.UNAVAILABLE || error.grpcStatus === status.DEADLINE_EXCEEDED) &&
    (metadata?.get(ERROR_CODE_KEY).length ?? 0) === 0
  );
}

/** One line for stderr: the service's code and detail, or the local problem. */
function failureLine(error: unknown): string {
  if (error instanceof AppError) return `${error.code}: ${error.detail}`;
  if (error instanceof TargetError || error instanceof UsageError || error instanceof Error)
    return error.message.split("\n")[0] ?? "failed";
  return String(error);
}
