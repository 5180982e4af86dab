import type { AnyRoute } from "@platform/http";
import type { Backends } from "../backends.js";
import { postAuthRoute } from "./auth/postAuth.js";
import { dataRoutes } from "./data/index.js";
import { dataEventsRoute } from "./events/dataEvents.js";
import { intentEventsRoute } from "./events/intentEvents.js";
import type { EventStreams } from "./events/serveEventStream.js";
import { getIntentRoute } from "./intents/getIntent.js";
import { listExpiredIntentsRoute } from "./intents/listExpiredIntents.js";
import { listIntentsByTransactionRoute } from "./intents/listIntentsByTransaction.js";
import { listPendingIntentsRoute } from "./intents/listPendingIntents.js";
import { postIntentNotificationRoute } from "./intents/postIntentNotification.js";
import { postPreflightRoute } from "./intents/postPreflight.js";
import { postQuoteRoute } from "./intents/postQuote.js";
import { getTcStatusRoute } from "./tc/getTcStatus.js";
import { postTcAcceptRoute } from "./tc/postTcAccept.js";
import { postTcNonceRoute } from "./tc/postTcNonce.js";

/** Every public API route, in the order the OpenAPI document lists them. */
export function apiRoutes(backends: Backends, streams: EventStreams): AnyRoute[] {
  return [
    postAuthRoute(backends.auth),
    postTcNonceRoute(backends.tc),
    getTcStatusRoute(backends.tc),
    postTcAcceptRoute(backends.tcWrites),
    postIntentNotificationRoute(backends.intents),
    postQuoteRoute(backends.intents),
    postPreflightRoute(backends.intents),
    listIntentsByTransactionRoute(backends.intents),
    // Before the order id route: express matches in mount order (the id is 32-byte hex anyway).
    listPendingIntentsRoute(backends.intents),
    listExpiredIntentsRoute(backends.intents),
    getIntentRoute(backends.intents),
    intentEventsRoute(backends.intents, streams),
    ...dataRoutes(backends),
    dataEventsRoute(backends.dataEvents, streams),
  ];
}
