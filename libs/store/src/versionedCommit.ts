import { createHash } from "node:crypto";
import type { Redis } from "./createRedis.js";

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
 * Every key the scripts touch travels in KEYS (the ops and `expect` refer to theirs by index), as
 * Redis Cluster requires: there all of them, the versions hash among them, must share one hash tag
 * (libs/read-models hashTags.ts), or the server refuses the call with CROSSSLOT.
 */

export type VersionedOp =
  | { op: "set"; key: string; value: string | Buffer }
  | { op: "del"; key: string }
  | { op: "zadd"; key: string; entries: readonly (string | number)[] }
  | { op: "zrem"; key: string; members: readonly string[] }
  | { op: "sadd"; key: string; members: readonly string[] }
  | { op: "srem"; key: string; members: readonly string[] }
  /** Replaces a hash whole (DEL then HSET); an empty record deletes it. */
  | { op: "hreplace"; key: string; fields: Readonly<Record<string, string>> }
  /**
   * Appends an entry to a stream (XADD, the id Redis's: after every id before it), trimmed to about
   * `maxLength` entries: a read model's change log, written in the same transaction as the change.
   */
  | { op: "xadd"; key: string; maxLength: number; fields: readonly (string | Buffer)[] };

export interface VersionedCommitInput {
  /** The hash holding the versions; one per data set (e.g. `rm:{intents}:versions`). */
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

/** Lua shared by both scripts: the non-empty lines of a newline-joined argument. */
const LUA_SPLIT = `
-- Non-empty lines; a plain find (memchr) per line, not a pattern match per character.
local function split(text)
  local parts, n, pos, length = {}, 0, 1, #text
  while pos <= length do
    local stop = string.find(text, '\\n', pos, true) or length + 1
    if stop > pos then
      n = n + 1
      parts[n] = string.sub(text, pos, stop - 1)
    end
    pos = stop + 1
  end
  return parts
end
`;

// KEYS: the versions hash, then every other key touched, once each. ARGV: nExpect, (key index in
// KEYS, present, value)*, guard names, guard versions, the ops' headers (op, key index, nArgs: three
// lines per op), the byte length of each op argument (one line each, `-` for a large
// one), the small op arguments concatenated into one blob, bump names, then each large argument.
// Names, versions, headers and lengths travel newline-joined and the small arguments as one blob:
// thousands of small arguments cost the client far more to encode (a RESP header, a length and a
// copy each) than a few long ones cost the script to split.
const SCRIPT = `
local versions = KEYS[1]
local at = 1
local function nextArg()
  local value = ARGV[at]
  at = at + 1
  return value
end
${LUA_SPLIT}local nExpect = tonumber(nextArg())
for _ = 1, nExpect do
  local key, present, value = KEYS[tonumber(nextArg())], nextArg(), nextArg()
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
local headers, lengths, blob, bumpNames = split(nextArg()), split(nextArg()), nextArg(), nextArg()
-- Large values follow as arguments of their own ('-' in lengths): Redis's Lua hashes every byte of
-- every string it makes, so a slice of the blob would be hashed a second time.
local separate = at
local pos, nextLength = 1, 1
for h = 1, #headers, 3 do
  local op, key, nArgs = headers[h], KEYS[tonumber(headers[h + 1])], tonumber(headers[h + 2])
  local args = {}
  for i = 1, nArgs do
    local length = lengths[nextLength]
    nextLength = nextLength + 1
    if length == '-' then
      args[i] = ARGV[separate]
      separate = separate + 1
    else
      length = tonumber(length)
      args[i] = string.sub(blob, pos, pos + length - 1)
      pos = pos + length
    end
  end
  if op == 'set' then
    redis.call('SET', key, args[1])
  elseif op == 'del' then
    redis.call('DEL', key)
  elseif op == 'hreplace' then
    redis.call('DEL', key)
    if nArgs > 0 then redis.call('HSET', key, unpack(args)) end
  elseif op == 'xadd' then
    redis.call('XADD', key, 'MAXLEN', '~', args[1], '*', unpack(args, 2))
  elseif nArgs > 0 then
    for i = 1, nArgs, 5000 do
      redis.call(op, key, unpack(args, i, math.min(i + 4999, nArgs)))
    end
  end
end
-- A guarded name is at its guard's version now: set them all at once; count up the others.
local sets = {}
for _, name in ipairs(split(bumpNames)) do
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
  const keys = new KeyIndex(input.versionsKey);
  const args: (string | Buffer)[] = [];
  const expect = input.expect ?? [];
  args.push(String(expect.length));
  for (const { key, value } of expect) args.push(keys.of(key), value === undefined ? "0" : "1", value ?? "");
  const guards = input.guards ?? new Map<string, string>();
  args.push(joinNames(guards.keys()), [...guards.values()].join("\n"));
  const { headers, lengths, blob, separate } = packOps(input.ops, keys);
  args.push(headers, lengths, blob);
  args.push(joinNames(new Set(input.bumps)));
  for (const value of separate) args.push(value);
  const declared = keys.list();
  let answer: unknown;
  try {
    answer = await redis.evalsha(SHA, declared.length, ...declared, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    // First use on this server (or after SCRIPT FLUSH): EVAL loads it for the next EVALSHA.
    answer = await redis.eval(SCRIPT, declared.length, ...declared, ...args);
  }
  const [outcome, key, actual] = answer as [string, string?, string?];
  if (outcome === "committed") return { outcome };
  if (outcome === "conflict") return { outcome, key: key! };
  if (outcome === "mismatch")
    return { outcome, key: key!, actual: actual === "" || actual === undefined ? undefined : actual };
  throw new Error(`unexpected answer from the versioned commit script: ${String(outcome)}`);
}

/** The keys of one call, each once, in KEYS order (1-based, as Lua counts); the first is the versions hash. */
export class KeyIndex {
  readonly #indexes = new Map<string, string>();
  constructor(first: string) {
    this.of(first);
  }
  of(key: string): string {
    let index = this.#indexes.get(key);
    if (index === undefined) {
      index = String(this.#indexes.size + 1);
      this.#indexes.set(key, index);
    }
    return index;
  }
  list(): string[] {
    return [...this.#indexes.keys()];
  }
}

function joinNames(names: Iterable<string>): string {
  const list = [...names];
  for (const name of list)
    if (name === "" || name.includes("\n"))
      throw new Error(`a version name must be non-empty and without newlines: ${JSON.stringify(name)}`);
  return list.join("\n");
}

/** Arguments of at least this many bytes travel on their own rather than in the blob. */
const SEPARATE_BYTES = 256;

/**
 * The ops as the script takes them: their headers (op, the key's index in `keys`, argument count; a line each), the byte
 * length of every argument (a line each; `-` for one of `separate`), the small arguments in one
 * buffer, and the large ones (`SEPARATE_BYTES` and more) on their own, in order. Runs of string
 * arguments are written with one call.
 */
export function packOps(
  ops: readonly VersionedOp[],
  keys: KeyIndex,
): {
  headers: string;
  lengths: string;
  blob: Buffer;
  separate: (string | Buffer)[];
} {
  const headers: string[] = [];
  const lengths: (number | "-")[] = [];
  const values: (string | Buffer)[] = [];
  const separate: (string | Buffer)[] = [];
  let total = 0;
  for (const op of ops) {
    if (op.key === "" || op.key.includes("\n"))
      throw new Error(`a key must be non-empty and without newlines: ${JSON.stringify(op.key)}`);
    const opArgs = opArguments(op);
    headers.push(op.op, keys.of(op.key), String(opArgs.length));
    for (const value of opArgs) {
      // (A string's byte length is at least its length.)
      if (value.length >= SEPARATE_BYTES) {
        lengths.push("-");
        separate.push(value);
        continue;
      }
      const length = typeof value === "string" ? Buffer.byteLength(value) : value.length;
      lengths.push(length);
      values.push(value);
      total += length;
    }
  }
  const blob = Buffer.allocUnsafe(total);
  let at = 0;
  let run = "";
  for (const value of values) {
    if (typeof value === "string") {
      run += value;
      continue;
    }
    if (run !== "") at += blob.write(run, at);
    run = "";
    at += value.copy(blob, at);
  }
  if (run !== "") at += blob.write(run, at);
  return { headers: headers.join("\n"), lengths: lengths.join("\n"), blob, separate };
}

function opArguments(op: VersionedOp): readonly (string | Buffer)[] {
  switch (op.op) {
    case "set":
      return [op.value];
    case "del":
      return [];
    case "hreplace":
      return Object.entries(op.fields).flat();
    case "zadd":
      return op.entries.map(String);
    case "xadd":
      if (op.fields.length === 0 || op.fields.length % 2 !== 0)
        throw new Error(`a stream entry needs field and value pairs: ${op.key}`);
      return [String(op.maxLength), ...op.fields];
    default:
      if (!MULTI_ARG_OPS.has(op.op)) throw new Error(`unknown versioned op ${(op as { op: string }).op}`);
      return op.members;
  }
}

/** How one key of an entity is read: its string value (bytes), a whole hash, or a set's members. */
export type EntityRead = "get" | "hgetall" | "smembers";

/**
 * Entities read alike (`readVersioned`'s `groups`): each is an id, its version name is
 * `namePrefix + id` and its keys `keyPrefixes[i] + id`, one per read; e.g. an order's events and
 * record, both `get`. The keys travel in KEYS (Redis Cluster routes and checks a script by them).
 */
export interface EntityGroup {
  reads: readonly EntityRead[];
  namePrefix: string;
  keyPrefixes: readonly string[];
  ids: readonly string[];
}

/** What one read of an entity answered: bytes or null (get), field → value (hgetall), members (smembers). */
export type EntityValue = Buffer | null | Record<string, string> | string[];

// KEYS[1]: the versions hash, then per group, read by read, the key of each id. ARGV: the number
// of groups, then per group its reads (comma-joined), its name prefix and its ids (newline-joined). Answers the
// versions of every entity in order (newline-joined, "0" for a name never written), then per group
// a flat list of (index, answer per read) for the entities that hold anything: a backlog of new
// entities costs one short answer, not a reply per key.
const READ_SCRIPT = `
local versions = KEYS[1]
${LUA_SPLIT}local found = {}
local out = {''}
local nextKey = 2
local at = 2
for g = 1, tonumber(ARGV[1]) do
  local reads = {}
  for read in string.gmatch(ARGV[at], '[^,]+') do reads[#reads + 1] = read end
  local namePrefix, ids = ARGV[at + 1], split(ARGV[at + 2])
  at = at + 3
  local nReads, nIds = #reads, #ids
  for i = 1, nIds, 5000 do
    local last = math.min(i + 4999, nIds)
    local names = {}
    for j = i, last do names[#names + 1] = namePrefix .. ids[j] end
    local actual = redis.call('HMGET', versions, unpack(names))
    for j = 1, #names do found[#found + 1] = actual[j] or '0' end
  end
  -- Column by column: a get column is one MGET per slice.
  local columns = {}
  for r = 1, nReads do
    local column, first = {}, nextKey
    if reads[r] == 'get' then
      for i = 1, nIds, 5000 do
        local last = math.min(i + 4999, nIds)
        local values = redis.call('MGET', unpack(KEYS, first + i - 1, first + last - 1))
        for j = 1, last - i + 1 do column[i + j - 1] = values[j] end
      end
    else
      local command = reads[r] == 'hgetall' and 'HGETALL' or 'SMEMBERS'
      for i = 1, nIds do column[i] = redis.call(command, KEYS[first + i - 1]) end
    end
    nextKey = first + nIds
    columns[r] = column
  end
  local entries = {}
  for i = 1, nIds do
    local any = false
    for r = 1, nReads do
      local value = columns[r][i]
      if (type(value) == 'table' and #value > 0) or type(value) == 'string' then any = true end
    end
    if any then
      entries[#entries + 1] = i - 1
      for r = 1, nReads do entries[#entries + 1] = columns[r][i] end
    end
  end
  out[g + 1] = entries
end
out[1] = table.concat(found, '\\n')
return out
`;
const READ_SHA = createHash("sha1").update(READ_SCRIPT).digest("hex");

export interface VersionedRead {
  /** The versions read, name → version ("0" when never written): the guards of a later commit. */
  versions: Map<string, string>;
  /** The commands' answers, in order. */
  results: unknown[];
  /** Per group, the entities holding anything: index in the group → an answer per read. Absent ones hold nothing. */
  groups: Map<number, EntityValue[]>[];
}

/**
 * One pipeline: the versions of `names` (HMGET, first), then `commands` (name and arguments, as
 * ioredis names them, e.g. `["mgetBuffer", ...keys]`), then `groups`: entities read with their
 * versions in one script (atomically), answering only the entities that hold anything. Versions
 * land in `into` when given; a name read again at another version is marked stale there, so a
 * commit guarded by it conflicts. Rejects with the first failing command.
 */
export async function readVersioned(
  redis: Redis,
  versionsKey: string,
  names: readonly string[],
  commands: readonly (readonly string[])[],
  into: Map<string, string> = new Map(),
  groups: readonly EntityGroup[] = [],
): Promise<VersionedRead> {
  const unique = [...new Set(names)];
  const scriptKeys: string[] = [versionsKey];
  const scriptArgs: string[] = [];
  if (groups.length > 0) {
    scriptArgs.push(String(groups.length));
    for (const group of groups) {
      if (group.reads.length === 0 || group.keyPrefixes.length !== group.reads.length)
        throw new Error("an entity group has one key prefix per read, and at least one");
      scriptArgs.push(group.reads.join(","), group.namePrefix, joinNames(group.ids));
      for (const prefix of group.keyPrefixes) for (const id of group.ids) scriptKeys.push(prefix + id);
    }
  }
  let answers: [Error | null, unknown][] = [];
  for (let attempt = 1; ; attempt++) {
    const pipeline = redis.pipeline();
    if (unique.length > 0) pipeline.hmget(versionsKey, ...unique);
    for (const [command, ...args] of commands)
      (pipeline as unknown as Record<string, (...values: string[]) => unknown>)[command!]!(...args);
    // The retry after NOSCRIPT sends the text itself: EVAL loads it on the server that runs it (on a
    // cluster, a SCRIPT LOAD would reach some node, not necessarily the one owning the keys).
    if (groups.length > 0)
      pipeline.callBuffer(
        attempt === 1 ? "evalsha" : "eval",
        attempt === 1 ? READ_SHA : READ_SCRIPT,
        scriptKeys.length,
        ...scriptKeys,
        ...scriptArgs,
      );
    answers = ((await pipeline.exec()) ?? []) as [Error | null, unknown][];
    const scriptError = groups.length > 0 ? answers.at(-1)?.[0] : null;
    // First use on this server (or after SCRIPT FLUSH): read again, sending the script.
    if (attempt === 1 && scriptError instanceof Error && scriptError.message.startsWith("NOSCRIPT")) continue;
    break;
  }
  const results = answers.map(([error, value], index) => {
    if (error)
      throw new Error(`redis ${index === 0 && unique.length > 0 ? "hmget" : "pipeline command"} failed`, {
        cause: error,
      });
    return value;
  });
  const merge = (name: string, version: string) => {
    const known = into.get(name);
    into.set(name, known === undefined || known === version ? version : "stale");
  };
  if (unique.length > 0) {
    const versions = results.shift() as (string | null)[];
    unique.forEach((name, index) => merge(name, versions[index] ?? "0"));
  }
  const read: Map<number, EntityValue[]>[] = [];
  if (groups.length > 0) {
    const [found, ...entries] = results.pop() as [Buffer, ...unknown[][]];
    const versions = found.length === 0 ? [] : found.toString().split("\n");
    let at = 0;
    groups.forEach((group, index) => {
      for (const id of group.ids) merge(group.namePrefix + id, versions[at++] ?? "0");
      read.push(entityAnswers(group, entries[index] ?? []));
    });
  }
  return { versions: into, results, groups: read };
}

/** The script's flat (index, answer per read) list of a group, as index → answers, strings decoded. */
function entityAnswers(group: EntityGroup, flat: readonly unknown[]): Map<number, EntityValue[]> {
  const byIndex = new Map<number, EntityValue[]>();
  const width = group.reads.length + 1;
  for (let at = 0; at + width <= flat.length; at += width) {
    const values = group.reads.map((read, offset): EntityValue => {
      const value = flat[at + 1 + offset];
      if (read === "get") return (value as Buffer | null) ?? null;
      const items = (value as Buffer[]).map((item) => item.toString());
      if (read === "smembers") return items;
      const hash: Record<string, string> = {};
      for (let field = 0; field + 1 < items.length; field += 2) hash[items[field]!] = items[field + 1]!;
      return hash;
    });
    byIndex.set(Number(flat[at]), values);
  }
  return byIndex;
}
