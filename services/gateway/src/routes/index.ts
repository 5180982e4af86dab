import type { AnyRoute } from "@platform/http";
import type { Backends } from "../backends.js";
import { postAuthRoute } from "./auth/postAuth.js";
import { getTcStatusRoute } from "./tc/getTcStatus.js";

/** Every public API route, in the order the OpenAPI document lists them. */
export function apiRoutes(backends: Backends): AnyRoute[] {
  return [postAuthRoute(backends.auth), getTcStatusRoute(backends.tc)];
}
