import { component, HalLinkSchema } from "@platform/http";
import { z } from "zod";

/** The answers of the Terms & Conditions routes. */

const wallet = () => z.string().meta({ description: "The wallet's EVM address, EIP-55" });
const version = (description = "The version of the Terms and Conditions now in force") =>
  z.number().int().positive().meta({ description });
const instant = (description = "ISO 8601 instant (UTC)") => z.string().meta({ description });

export const TcNonceSchema = component(
  "TcNonce",
  z
    .object({
      walletAddress: wallet(),
      nonce: z.string().meta({ description: "The single-use nonce the SIWE message must carry" }),
      expiresAt: instant("When the nonce stops being accepted, ISO 8601 (UTC)"),
      issuedAt: instant(
        "When the nonce was issued, ISO 8601 (UTC); the message's issuedAt must be within 5 minutes of server time",
      ),
      domain: z.string().meta({ description: "The SIWE domain the message must name" }),
      uri: z.string().meta({ description: "The SIWE URI the message must name" }),
      version: z.string().regex(/^1$/).meta({ description: "The SIWE message version (EIP-4361): always 1, as text" }),
      chainIds: z
        .array(z.number().int().positive().meta({ description: "An EVM chain id" }))
        .meta({ description: "The chain ids a message may name" }),
      statement: z.string().meta({ description: "The statement the message must carry, word for word" }),
      resource: z.string().meta({
        description: "The single resource the message must list: coin-tc:v<N>, N the Terms and Conditions version",
      }),
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
    acceptedAt: instant()
      .nullable()
      .meta({ description: "When acceptedVersion was accepted, ISO 8601; null if never" }),
    _links: z
      .object({ self: HalLinkSchema.meta({ description: "This answer" }) })
      .meta({ description: "Related resources, by relation name (HAL)" }),
  }),
);

export const TcAcceptanceSchema = component(
  "TcAcceptance",
  z.object({
    walletAddress: wallet(),
    acceptedVersion: version("The version just accepted"),
    acceptedAt: instant("When it was accepted, ISO 8601 (UTC)"),
    _links: z
      .object({ status: HalLinkSchema.meta({ description: "The wallet's acceptance status (tc/status)" }) })
      .meta({ description: "Related resources, by relation name (HAL)" }),
  }),
);

export const TC_NO_STORE = "`no-store`: about one wallet's state, which changes when it accepts";
