import type { ServerResponse } from "node:http";
import { type AnyRoute, type RequestContext, sendJsonText } from "@platform/http";
import { notModifiedCost } from "../../access/notModifiedCost.js";
import { type AccessGuard, admit, type RawInput, validateAll } from "../admission.js";
import type { ConditionalReads, KeptAnswer } from "./conditionalReads.js";
import { answerKey, type ConditionalRead } from "./conditionalRoute.js";
import { entityTagOf, matchesTag, parseIfNoneMatch } from "./entityTags.js";
import { asOfTimestampOf, cacheControlOf, IMMUTABLE_MAX_AGE_SECONDS, secondsUntilNextBlock } from "./freshness.js";

export interface ConditionalRequest {
  route: AnyRoute;
  read: ConditionalRead;
  raw: RawInput;
  context: RequestContext;
  response: ServerResponse;
  guard: AccessGuard;
}

/**
 * Serves a conditional read (RFC 9110 §13.1.2, §15.4.5) in the order serveRoute keeps: the guard,
 * then the inputs, then the handler.
 *
 * - A request whose answer the gateway keeps and can prove current (nothing it was read from
 *   changed since, and it was read less than a block time ago) is answered from memory with no backend
 *   call: 304 when If-None-Match names its tag (admitted at a fifth of the route's cost,
 *   access/notModifiedCost.ts), else the same 200 again at the full cost. The inputs are validated
 *   before the guard to find the kept answer, but a refusal is still thrown after it, so
 *   401/403/429 come first as on every route.
 * - Otherwise it is admitted at the full cost and the handler runs. A 200 answer gets its ETag and
 *   Cache-Control, and is kept (when the cache is on); if If-None-Match names its tag, it goes out
 *   as 304 instead. Any other answer goes out as it is, without ETag.
 *
 * A 304 carries the ETag, Cache-Control and the RateLimit headers, and no body; HEAD answers alike.
 */
export async function serveConditionalRead(request: ConditionalRequest, reads: ConditionalReads): Promise<void> {
  const { route, raw, context, response, guard } = request;
  const condition = parseIfNoneMatch(context.header("if-none-match"));
  let input: ReturnType<typeof validateAll> | undefined;
  let refusal: { error: unknown } | undefined;
  let kept: KeptAnswer | undefined;
  if (reads.cacheOn()) {
    try {
      input = validateAll(route, raw);
    } catch (error) {
      refusal = { error };
    }
    kept = input === undefined ? undefined : reads.current(answerKey(route, input.params, input.query));
  }
  const proven = kept !== undefined && condition !== undefined && matchesTag(condition, kept.tag);
  const cost = route.cost ?? 1;
  if (route.scope) await admit(route, proven ? notModifiedCost(cost) : cost, context, response, guard);
  if (refusal !== undefined) throw refusal.error;
  if (kept !== undefined) return answerFromMemory(request, reads, kept, condition !== undefined, proven);

  const valid = input ?? validateAll(route, raw);
  const compute = async () => ({ since: reads.clock.now(), result: await route.handle({ ...valid, context }) });
  // While the cache is on, concurrent misses of one question share one call (answers do not
  // depend on the caller); the request id of the first goes to the backend.
  const { since, result } = reads.cacheOn()
    ? await reads.shared(answerKey(route, valid.params, valid.query), compute)
    : await compute();
  input = valid;
  const text = JSON.stringify(result.body);
  if (result.status !== 200) {
    setHeaders(response, result.headers);
    return sendJsonText(response, result.status, result.contentType ?? "application/json", text);
  }

  // Encoded once: hashed, kept and sent as the same bytes.
  const body = Buffer.from(text);
  const tag = entityTagOf(body);
  const asOfTimestamp = asOfTimestampOf(result.body);
  // An answer pinned to a finalized block never changes: no block or signal makes it stale, so it
  // is kept (least recently used first out) and sent as fresh for as long as a client may keep it.
  const immutable = result.immutable === true;
  const maxAge = immutable
    ? IMMUTABLE_MAX_AGE_SECONDS
    : secondsUntilNextBlock(asOfTimestamp, reads.blockSeconds, reads.now());
  const contentType = result.contentType ?? "application/json";
  const asOfMs = asOfTimestamp === undefined ? Number.NaN : Date.parse(asOfTimestamp);
  if (Number.isFinite(asOfMs)) reads.observeAsOf(route.path, asOfMs);
  if (reads.cacheOn() && reads.blockSeconds > 0) {
    const dependencies = immutable ? [] : request.read.dependsOn(input.params as Record<string, unknown>);
    const now = reads.now();
    reads.keep(answerKey(route, input.params, input.query), {
      tag,
      body,
      contentType,
      expiresAt: now + maxAge * 1_000,
      keepUntil: now + (immutable ? maxAge : reads.blockSeconds) * 1_000,
      since,
      dependencies,
      ...(result.headers ? { headers: result.headers } : {}),
      ...(Number.isFinite(asOfMs) ? { asOfMs } : {}),
      ...(immutable ? { immutable } : {}),
    });
  }
  if (condition !== undefined && matchesTag(condition, tag)) {
    reads.count(route.path, "not_modified_after_call");
    return notModified(response, tag, maxAge, immutable);
  }
  if (condition !== undefined) reads.count(route.path, "modified");
  setHeaders(response, result.headers);
  sendAnswer(response, { tag, body, contentType, immutable }, maxAge);
}

/**
 * The route's own headers (a deprecation's, say): on its 200s, fresh or from memory, and not on a
 * 304, which carries only what RFC 9110 §15.4.5 asks of it (the ETag and Cache-Control).
 */
function setHeaders(response: ServerResponse, headers: Record<string, string> | undefined): void {
  if (headers) for (const name in headers) response.setHeader(name, headers[name]!);
}

/** A current kept answer: 304 when the request names its tag, else the same 200 again. */
function answerFromMemory(
  { route, response }: ConditionalRequest,
  reads: ConditionalReads,
  kept: KeptAnswer,
  conditional: boolean,
  proven: boolean,
): void {
  // An immutable answer stays fresh for as long from every copy; others count down to the next block.
  const maxAge = kept.immutable
    ? IMMUTABLE_MAX_AGE_SECONDS
    : Math.max(0, Math.floor((kept.expiresAt - reads.now()) / 1_000));
  if (kept.asOfMs !== undefined) reads.observeAsOf(route.path, kept.asOfMs);
  if (proven) {
    reads.count(route.path, "not_modified_cached");
    notModified(response, kept.tag, maxAge, kept.immutable);
    return;
  }
  if (conditional) reads.count(route.path, "modified");
  reads.countServed(route.path);
  setHeaders(response, kept.headers);
  sendAnswer(response, kept, maxAge);
}

/** A 200 with its ETag and Cache-Control, the body as encoded bytes (sendJsonText's headers otherwise). */
function sendAnswer(
  response: ServerResponse,
  answer: Pick<KeptAnswer, "tag" | "body" | "contentType" | "immutable">,
  maxAge: number,
): void {
  response.statusCode = 200;
  response.setHeader("etag", answer.tag);
  response.setHeader("cache-control", cacheControlOf(maxAge, answer.immutable));
  response.setHeader("content-type", `${answer.contentType}; charset=utf-8`);
  response.setHeader("content-length", answer.body.length);
  response.end(answer.body);
}

function notModified(response: ServerResponse, tag: string, maxAge: number, immutable = false): void {
  response.statusCode = 304;
  response.setHeader("etag", tag);
  response.setHeader("cache-control", cacheControlOf(maxAge, immutable));
  response.end();
}
