export { type CollectionOptions, type HalCollection, halCollection, type PageState, pageBody } from "./collection.js";
export {
  type AnyRoute,
  type ConditionalReadDocs,
  defineRoute,
  type HttpMethod,
  type RequestContext,
  type RouteDefinition,
  type RouteDocs,
  type RouteInput,
  type RouteResult,
} from "./defineRoute.js";
export { HAL_CONTENT_TYPE, type HalLink, type HalLinks, type HalResource, halResource, hrefWithQuery } from "./hal.js";
export { decimalAtMostPattern, hexWordPattern } from "./numberPatterns.js";
export { buildOpenApiDocument, type OpenApiInfo, openApiPath, queryParameterNames } from "./openapi.js";
export { type ParameterRule, parameterRules, parametersOfRule, withParameterRules } from "./parameterRules.js";
export { patternString } from "./patternString.js";
export {
  PROBLEM_CONTENT_TYPE,
  type Problem,
  problemBody,
  problemSlug,
  sendJsonText,
  sendProblem,
  titleFor,
} from "./problem.js";
export {
  booleanQuery,
  instantQuery,
  integerItem,
  integerQuery,
  type ListItem,
  listQuery,
  nameItem,
  parseInstant,
} from "./query.js";
export {
  component,
  HalLinkSchema,
  OptionalHalLinkSchema,
  PageSchema,
  responseComponents,
} from "./responseSchemas.js";
export {
  type InputError,
  type InputLocation,
  type InputSchemas,
  inputPointer,
  UNKNOWN_PARAMETER,
  unknownDiscriminatorCodes,
  validateInput,
  validateRequest,
} from "./validate.js";
export { wireSchemas } from "./wireSchemas.js";
