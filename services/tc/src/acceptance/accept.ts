import type { Logger } from "@platform/log";
import { signatureKindToJSON } from "@platform/proto/events/v1/tc_acceptances";
import type { AcceptRequest, AcceptResponse } from "@platform/proto/tc/v1/tc";
import { TOPICS } from "@platform/proto/topics";
import { awaitStoredOffset, type Redis } from "@platform/store";
import { dependencyUnavailable, refusal } from "../acceptErrors.js";
import { tcKeys } from "../keys.js";
import { checkMessage } from "../siwe/checkMessage.js";
import type { ContractWalletChain } from "../siwe/contractWalletChain.js";
import { parseSiwe } from "../siwe/parseMessage.js";
import type { SiweRules } from "../siwe/siweRules.js";
import { isSignatureHex, verifySignature } from "../siwe/verifySignature.js";
import { termsAccepted } from "./acceptanceEvent.js";
import type { EventPublisher } from "./eventPublisher.js";
import { consumeNonce } from "./nonces.js";

export interface AcceptOptions {
  redis: Redis;
  rules: SiweRules;
  /** One per chain id of `rules.chainIds`. */
  chains: ReadonlyMap<number, ContractWalletChain>;
  publisher: EventPublisher;
  log: Logger;
  now?: () => Date;
  /** Longest wait for Kafka to confirm the event; 5 s by default. */
  publishTimeoutMs?: number;
  /** Longest wait for the projection to show the acceptance (read-your-writes); 5 s by default. */
  projectionTimeoutMs?: number;
}

export interface AcceptContext {
  /** The caller's deadline, epoch ms (Infinity when it set none). */
  deadline: number;
  /** The API key the request came with, for the audit record; "" when unknown. */
  apiKeyId: string;
}

/** Time left for the answer to reach the caller: work that ends later than this is wasted. */
const REPLY_MARGIN_MS = 250;
/** Used when the caller set no deadline, so no step can wait forever. */
const DEFAULT_BUDGET_MS = 30_000;

/**
 * Accept: verifies a signed EIP-4361 message and records the acceptance, in this order:
 *
 * 1. the message's form and the server's checks (parseSiwe, checkMessage), none of which touch
 *    any state, so a bad message never burns its nonce;
 * 2. the nonce, consumed atomically once (also when the signature then fails, so a nonce can
 *    never be tried twice);
 * 3. the signature (EOA offline; contract wallets on the message's chain);
 * 4. the TermsAccepted event published to Kafka first (the truth), then a bounded wait until the
 *    projection shows it, so a status read right after the answer sees it.
 *
 * Messages and signatures are never logged: they go to the audit event only.
 */
export function acceptCommand(
  options: AcceptOptions,
): (request: AcceptRequest, context: AcceptContext) => Promise<AcceptResponse> {
  const { redis, rules, chains, publisher, log } = options;
  const now = options.now ?? (() => new Date());
  const publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
  const projectionTimeoutMs = options.projectionTimeoutMs ?? 5_000;

  return async (request, context) => {
    const deadline =
      (Number.isFinite(context.deadline) ? context.deadline : Date.now() + DEFAULT_BUDGET_MS) - REPLY_MARGIN_MS;
    const parsed = parseSiwe(request.message);
    const signature = request.signature;
    if (!isSignatureHex(signature))
      throw refusal("SIWE_SIGNATURE_INVALID", "the signature must be 0x-prefixed hex of whole bytes");
    const checked = checkMessage(parsed, rules, now());
    const chain = chains.get(checked.chainId);
    if (chain === undefined) throw new Error(`no chain client for allowed chain id ${checked.chainId}`);

    if (!(await consumeNonce(redis, checked.nonce, checked.wallet))) {
      throw refusal(
        "NONCE_INVALID_OR_USED",
        "the nonce is unknown, expired, already used, or was issued to another wallet; ask for a new one",
      );
    }

    const signatureKind = await withinDeadline(
      verifySignature(request.message, checked.wallet, signature, chain),
      deadline,
    );
    if (signatureKind === undefined)
      throw refusal("SIWE_SIGNATURE_INVALID", "the signature does not verify for the message's address");

    if (Date.now() >= deadline)
      throw dependencyUnavailable("the acceptance could not be recorded in time; try again with a new nonce");
    const acceptedAt = now();
    const event = termsAccepted({
      message: request.message,
      parsed,
      signature,
      signatureKind,
      tcVersion: checked.tcVersion,
      acceptedAt,
      apiKeyId: context.apiKeyId,
    });
    const published = await publisher.publish(event, checked.wallet, Math.min(Date.now() + publishTimeoutMs, deadline));
    const projected = await awaitStoredOffset(
      redis,
      tcKeys.offset(TOPICS.tcAcceptances.name, published.partition),
      published.offset,
      Math.min(Date.now() + projectionTimeoutMs, deadline),
    );
    const logged = {
      wallet: checked.wallet,
      tcVersion: checked.tcVersion,
      chainId: checked.chainId,
      signatureKind: signatureKindToJSON(signatureKind),
    };
    if (!projected)
      log.warn(
        { ...logged, partition: published.partition },
        "acceptance recorded; the projection has not applied it yet, it will",
      );
    log.info(logged, "terms accepted");
    return { walletAddress: checked.wallet, acceptedVersion: checked.tcVersion, acceptedAt: acceptedAt.toISOString() };
  };
}

/** Settles like `work`, or rejects with UNAVAILABLE at the deadline (an RPC slower than the caller). */
async function withinDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(dependencyUnavailable("checking the signature took too long (chain RPC); try again with a new nonce")),
      Math.max(0, deadline - Date.now()),
    );
    timer.unref();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
