import type { AnyRoute } from "@platform/http";
import type { Backends } from "../backends.js";
import { postAuthRoute } from "./auth/postAuth.js";
import { postIntentNotificationRoute } from "./intents/postIntentNotification.js";
import { getTcStatusRoute } from "./tc/getTcStatus.js";
import { postTcAcceptRoute } from "./tc/postTcAccept.js";
import { postTcNonceRoute } from "./tc/postTcNonce.js";

/** Every public API route, in the order the OpenAPI document lists them. */
export function apiRoutes(backends: Backends): AnyRoute[] {
  return [
    postAuthRoute(backends.auth),
    postTcNonceRoute(backends.tc),
    getTcStatusRoute(backends.tc),
    postTcAcceptRoute(backends.tcWrites),
    postIntentNotificationRoute(backends.intents),
  ];
}
