import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/*
 * Optimistic transactions in one round trip, for a writer that reads a set of keys, computes, and
 * writes: a replacement for WATCH/MULTI/EXEC, whose WATCH (one command per read round, held on the
 * connection) and queued MULTI cost several round trips per transaction.
 *
 * The writer names what it versions: a key, or an entity stored in several keys (an order's record
 * and its events, say). Each name has a version, a counter in one hash (`versionsKey`, field = the
 * name) that every commit writing any of its keys increments (`bumps`) and nothing ever decrements
 * or removes, so a version stands for one content (no ABA). A reader reads the versions of what it
 * is about to read first, in the same pipeline and before the values (`readVersioned`): a commit
 * landing between the two reads moves the version, and the guard then fails instead of passing
 * with a stale value. The commit script checks, atomically with its writes:
 *
 * - `expect`: keys whose current value must equal a given string (or be absent), e.g. a stored
 *   partition offset; a mismatch answers `{ outcome: "mismatch" }`;
 * - `guards`: names whose version must still be the one read; a mismatch answers `{ outcome: "conflict" }`;
 *
 * and only then applies `ops` in order and increments the versions of `bumps`. Every name whose
 * keys `ops` write must be among `bumps`: the caller maps keys to names.
 *
 * Only for a standalone Redis server: the script touches keys it is not given in KEYS (the
 * key set is data-dependent), which Redis Cluster forbids.
 */

export type VersionedOp =
  | { op: "set"; key: string; value: string | Buffer }
  | { op: "del"; key: string }
  | { op: "zadd"; key: string; entries: readonly (string | number)[] }
  | { op: "zrem"; key: string; members: readonly string[] }
  | { op: "sadd"; key: string; members: readonly string[] }
  | { op: "srem"; key: string; members: readonly string[] }
  /** Replaces a hash whole (DEL then HSET); an empty record deletes it. */
  | { op: "hreplace"; key: string; fields: Readonly<Record<string, string>> };

export interface VersionedCommitInput {
  /** The hash holding the versions; one per data set (e.g. `rm:intents:versions`). */
  versionsKey: string;
  /** Keys whose value must equal the given string, or be absent when it is undefined. */
  expect?: readonly { key: string; value: string | undefined }[];
  /** Names whose version must still be the given one ("0" when never written). */
  guards?: ReadonlyMap<string, string>;
  ops: readonly VersionedOp[];
  /** The names of everything `ops` write, each once. */
  bumps: Iterable<string>;
}

export type VersionedCommitResult =
  | { outcome: "committed" }
  | { outcome: "mismatch"; key: string; actual: string | undefined }
  | { outcome: "conflict"; key: string };

// ARGV: nExpect, (key, present, value)*, guard names, guard versions, nOps, (op, key, nArgs, args...)*, bump names.
// Names and versions travel newline-joined, one argument each: thousands of small arguments cost
// the client far more to encode than one long one costs the script to split.
const SCRIPT = `
local versions = KEYS[1]
local at = 1
local function nextArg()
  local value = ARGV[at]
  at = at + 1
  return value
end
local function split(text)
  local parts = {}
  for part in string.gmatch(text, '[^\\n]+') do parts[#parts + 1] = part end
  return parts
end
local nExpect = tonumber(nextArg())
for _ = 1, nExpect do
  local key, present, value = nextArg(), nextArg(), nextArg()
  local actual = redis.call('GET', key)
  if present == '1' then
    if actual ~= value then return {'mismatch', key, actual or ''} end
  elseif actual then
    return {'mismatch', key, actual}
  end
end
local names, expected = split(nextArg()), split(nextArg())
local nGuards = #names
local guarded = {}
for i = 1, nGuards do guarded[names[i]] = expected[i] end
-- HMGET in slices (Lua's unpack has a limit); a missing field comes back as false.
for i = 1, nGuards, 5000 do
  local last = math.min(i + 4999, nGuards)
  local actual = redis.call('HMGET', versions, unpack(names, i, last))
  for j = 1, last - i + 1 do
    local name = names[i + j - 1]
    if (actual[j] or '0') ~= guarded[name] then return {'conflict', name} end
  end
end
local nOps = tonumber(nextArg())
for _ = 1, nOps do
  local op, key, nArgs = nextArg(), nextArg(), tonumber(nextArg())
  local args = {}
  for i = 1, nArgs do args[i] = nextArg() end
  if op == 'set' then
    redis.call('SET', key, args[1])
  elseif op == 'del' then
    redis.call('DEL', key)
  elseif op == 'hreplace' then
    redis.call('DEL', key)
    if nArgs > 0 then redis.call('HSET', key, unpack(args)) end
  elseif nArgs > 0 then
    for i = 1, nArgs, 5000 do
      redis.call(op, key, unpack(args, i, math.min(i + 4999, nArgs)))
    end
  end
end
-- A guarded name is at its guard's version now: set them all at once; count up the others.
local sets = {}
for _, name in ipairs(split(nextArg())) do
  local known = guarded[name]
  if known then
    sets[#sets + 1] = name
    sets[#sets + 1] = tostring(tonumber(known) + 1)
  else
    redis.call('HINCRBY', versions, name, 1)
  end
end
for i = 1, #sets, 5000 do
  redis.call('HSET', versions, unpack(sets, i, math.min(i + 4999, #sets)))
end
return {'committed'}
`;

const SHA = createHash("sha1").update(SCRIPT).digest("hex");
const MULTI_ARG_OPS = new Set(["zadd", "zrem", "sadd", "srem"]);

/** Checks `expect` and `guards`, then applies `ops` and increments the versions of `bumps`, atomically. */
export async function versionedCommit(redis: Redis, input: VersionedCommitInput): Promise<VersionedCommitResult> {
  const args: (string | Buffer)[] = [];
  const expect = input.expect ?? [];
  args.push(String(expect.length));
  for (const { key, value } of expect) args.push(key, value === undefined ? "0" : "1", value ?? "");
  const guards = input.guards ?? new Map<string, string>();
  args.push(joinNames(guards.keys()), [...guards.values()].join("\n"));
  args.push(String(input.ops.length));
  for (const op of input.ops) {
    const opArgs = opArguments(op);
    args.push(op.op, op.key, String(opArgs.length), ...opArgs);
  }
  args.push(joinNames(new Set(input.bumps)));
  let answer: unknown;
  try {
    answer = await redis.evalsha(SHA, 1, input.versionsKey, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    // First use on this server (or after SCRIPT FLUSH): EVAL loads it for the next EVALSHA.
    answer = await redis.eval(SCRIPT, 1, input.versionsKey, ...args);
  }
  const [outcome, key, actual] = answer as [string, string?, string?];
  if (outcome === "committed") return { outcome };
  if (outcome === "conflict") return { outcome, key: key! };
  if (outcome === "mismatch") return { outcome, key: key!, actual: actual === "" || actual === undefined ? undefined : actual };
  throw new Error(`unexpected answer from the versioned commit script: ${String(outcome)}`);
}

function joinNames(names: Iterable<string>): string {
  const list = [...names];
  for (const name of list) if (name === "" || name.includes("\n")) throw new Error(`a version name must be non-empty and without newlines: ${JSON.stringify(name)}`);
  return list.join("\n");
}

function opArguments(op: VersionedOp): (string | Buffer)[] {
  switch (op.op) {
    case "set":
      return [op.value];
    case "del":
      return [];
    case "hreplace":
      return Object.entries(op.fields).flat();
    case "zadd":
      return op.entries.map(String);
    default:
      if (!MULTI_ARG_OPS.has(op.op)) throw new Error(`unknown versioned op ${(op as { op: string }).op}`);
      return [...op.members];
  }
}

export interface VersionedRead {
  /** The versions read, name → version ("0" when never written): the guards of a later commit. */
  versions: Map<string, string>;
  /** The commands' answers, in order. */
  results: unknown[];
}

/**
 * One pipeline: the versions of `names` (HMGET, first), then `commands` (name and arguments, as
 * ioredis names them, e.g. `["mgetBuffer", ...keys]`). Versions land in `into` when given; a name
 * read again at another version is marked stale there, so a commit guarded by it conflicts.
 * Rejects with the first failing command.
 */
export async function readVersioned(
  redis: Redis,
  versionsKey: string,
  names: readonly string[],
  commands: readonly (readonly string[])[],
  into: Map<string, string> = new Map(),
): Promise<VersionedRead> {
  const unique = [...new Set(names)];
  const pipeline = redis.pipeline();
  if (unique.length > 0) pipeline.hmget(versionsKey, ...unique);
  for (const [command, ...args] of commands) (pipeline as unknown as Record<string, (...values: string[]) => unknown>)[command!]!(...args);
  const answers = (await pipeline.exec()) ?? [];
  const results = answers.map(([error, value], index) => {
    if (error) throw new Error(`redis ${index === 0 && unique.length > 0 ? "hmget" : "pipeline command"} failed`, { cause: error });
    return value;
  });
  if (unique.length > 0) {
    const versions = results.shift() as (string | null)[];
    unique.forEach((name, index) => {
      const version = versions[index] ?? "0";
      const known = into.get(name);
      into.set(name, known === undefined || known === version ? version : "stale");
    });
  }
  return { versions: into, results };
}
