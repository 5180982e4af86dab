import { component, HalLinkSchema } from "@platform/http";
import { z } from "zod";

/** The answers of the Terms & Conditions routes. */

const wallet = () => z.string().meta({ description: "The wallet's EVM address, EIP-55" });
const version = () => z.number().int().positive();
const instant = () => z.string().meta({ description: "ISO 8601 instant (UTC)" });

export const TcNonceSchema = component(
  "TcNonce",
  z
    .object({
      walletAddress: wallet(),
      nonce: z.string(),
      expiresAt: instant(),
      issuedAt: instant(),
      domain: z.string(),
      uri: z.string(),
      version: z.string(),
      chainIds: z.array(z.number().int().positive()),
      statement: z.string(),
      resource: z.string(),
      currentTcVersion: version(),
    })
    .meta({ description: "A single-use nonce and the exact SIWE fields the server accepts" }),
);

export const TcStatusSchema = component(
  "TcStatus",
  z.object({
    walletAddress: wallet(),
    currentTcVersion: version(),
    acceptedVersion: version().nullable().meta({ description: "The version accepted last; null if never" }),
    accepted: z.boolean().meta({ description: "Whether the current version is accepted" }),
    acceptedAt: instant().nullable(),
    _links: z.object({ self: HalLinkSchema }),
  }),
);

export const TcAcceptanceSchema = component(
  "TcAcceptance",
  z.object({
    walletAddress: wallet(),
    acceptedVersion: version(),
    acceptedAt: instant(),
    _links: z.object({ status: HalLinkSchema }),
  }),
);

export const TC_NO_STORE = "`no-store`: about one wallet's state, which changes when it accepts";
