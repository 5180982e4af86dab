import { status } from "@grpc/grpc-js";
import { AppError } from "@platform/errors";
import { callUnary } from "@platform/grpc";
import { component, defineRoute, unknownDiscriminatorCodes } from "@platform/http";
import type { AuthServiceClient, IssueTokenRequest } from "@platform/proto/auth/v1/auth";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { HttpProblem } from "../../HttpProblem.js";

const username = z.string().min(1).max(256).meta({ description: "The API key id, in both modes" });

/** One schema per grant: what each needs is required in it, and the document says so (oneOf). */
const authBody = z
  .discriminatedUnion(
    "type",
    [
      z.object({
        type: z.literal("API_KEY"),
        username,
        password: z.string().min(1).max(512).meta({ description: "The API key secret" }),
      }),
      z.object({
        type: z.literal("REFRESH_TOKEN"),
        username,
        refresh_token: z.string().min(1).max(512).meta({ description: "A refresh token issued to this key id" }),
      }),
    ],
    {
      error: (issue) =>
        (issue.input as { type?: unknown } | undefined)?.type === undefined
          ? "is required"
          : "must be API_KEY or REFRESH_TOKEN",
    },
  )
  .register(unknownDiscriminatorCodes, { code: "UNSUPPORTED_GRANT_TYPE" });

/** The tokens issued: a bearer access token and, for an API key grant, a refresh token. */
const TokenSchema = component(
  "Token",
  z.object({
    access_token: z.string().meta({ description: "Opaque bearer token: do not parse it" }),
    token_type: z
      .literal("Bearer")
      .meta({ description: "Always Bearer: send it as `Authorization: Bearer <access_token>`" }),
    expires_in: z.string().regex(/^\d+$/).meta({ description: "Seconds until the access token expires, as digits" }),
    refresh_token: z
      .string()
      .optional()
      .meta({ description: "Issued for an API_KEY grant only; absent in REFRESH_TOKEN mode" }),
  }),
);

/** RFC 6749 §5.1: anything that may carry credentials is never cached (app.ts sets them on every /auth answer). */
const AUTH_HEADERS = {
  "Cache-Control": "`no-store`: the answer carries credentials",
  Pragma: "`no-cache`, for HTTP/1.0 caches",
};

/**
 * `POST /auth`: API-key credentials or a refresh token in, a bearer access token out. Public; it
 * never answers 403 or 429 (repeated failures are slowed and locked out by auth, still as 401).
 */
export function postAuthRoute(auth: AuthServiceClient) {
  return defineRoute({
    method: "post",
    path: "/auth",
    operationId: "issueToken",
    body: authBody,
    docs: {
      summary: "Exchange an API key or a refresh token for an access token",
      description:
        "Tokens are opaque: do not parse them. `expires_in` is a string of digits (seconds). In REFRESH_TOKEN mode no new refresh token is issued and the field is absent. Every answer carries Cache-Control: no-store.\n\nTwo kinds of key: a server key's secret is `sk_…` and must never be shipped to a web page or app bundle; a browser key's is a publishable `pk_…`, with read scopes only and a smaller rate budget (tier `browser`). A browser key, and its refresh token, are answered only for a request whose `Origin` header is one of the key's allowed origins (else 401 `KEY_ORIGIN_NOT_ALLOWED`), and its access tokens are refused from any other Origin (403 `KEY_ORIGIN_NOT_ALLOWED`). This stops other web sites' pages from using the key; it does not stop a non-browser client, which can send any `Origin`. A page that needs more (writes, a larger budget) gets short-lived tokens from its own backend, which holds a server key (the client's `getAccessToken`).",
      tags: ["Authentication"],
      everyAnswerHeaders: AUTH_HEADERS,
      success: {
        status: 200,
        description: "Tokens issued",
        contentType: "application/json",
        schema: TokenSchema,
        example: {
          access_token: "eyJhbGciOiJFZERTQSIs…",
          token_type: "Bearer",
          expires_in: "900",
          refresh_token: "rt_6Jv…",
        },
      },
      errors: [
        { status: 400, code: "INVALID_REQUEST" },
        { status: 400, code: "UNSUPPORTED_GRANT_TYPE" },
        { status: 401, code: "INVALID_CREDENTIALS" },
        { status: 401, code: "INVALID_REFRESH_TOKEN" },
        { status: 401, code: "KEY_ORIGIN_NOT_ALLOWED" },
        { status: 404, code: "NOT_FOUND" },
        { status: 405, code: "METHOD_NOT_ALLOWED" },
        { status: 503, code: "UNAVAILABLE" },
        { status: 503, code: "GRANTS_EXHAUSTED" },
      ],
    },
    async handle({ body, context }) {
      const grant: IssueTokenRequest["grant"] =
        body.type === "API_KEY"
          ? { $case: "apiKey", value: { keyId: body.username, secret: body.password } }
          : { $case: "refreshToken", value: { keyId: body.username, refreshToken: body.refresh_token } };
      try {
        const issued = await callUnary(
          auth,
          auth.issueToken,
          { grant, clientAddress: context.clientAddress(), origin: context.header("origin") ?? "" },
          callMetadata(context),
          // Lockout slows failing attempts by up to a few seconds: give auth the time.
          { deadline: Date.now() + 10_000 },
        );
        return {
          status: 200,
          body: {
            access_token: issued.accessToken,
            token_type: "Bearer",
            expires_in: String(issued.expiresInSeconds),
            ...(issued.refreshToken === undefined ? {} : { refresh_token: issued.refreshToken }),
          } satisfies z.output<typeof TokenSchema>,
        };
      } catch (error) {
        if (error instanceof AppError && error.grpcStatus === status.UNAUTHENTICATED) {
          throw new HttpProblem({
            code: error.code,
            grpcStatus: error.grpcStatus,
            detail: error.detail,
            headers: { "www-authenticate": 'ApiKey realm="auth"' },
          });
        }
        throw error;
      }
    },
  });
}
