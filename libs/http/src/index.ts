export { halCollection, pageBody, type CollectionOptions, type HalCollection, type PageState } from "./collection.js";
export {
  defineRoute,
  type AnyRoute,
  type ConditionalReadDocs,
  type HttpMethod,
  type RequestContext,
  type RouteDefinition,
  type RouteDocs,
  type RouteInput,
  type RouteResult,
} from "./defineRoute.js";
export { HAL_CONTENT_TYPE, halResource, hrefWithQuery, type HalLink, type HalLinks, type HalResource } from "./hal.js";
export { buildOpenApiDocument, openApiPath, type OpenApiInfo } from "./openapi.js";
export {
  component,
  HalLinkSchema,
  OptionalHalLinkSchema,
  PageSchema,
  responseComponents,
} from "./responseSchemas.js";
export {
  PROBLEM_CONTENT_TYPE,
  problemBody,
  problemSlug,
  sendJsonText,
  sendProblem,
  titleFor,
  type Problem,
} from "./problem.js";
export { parameterRules, parametersOfRule, withParameterRules, type ParameterRule } from "./parameterRules.js";
export { patternString } from "./patternString.js";
export {
  booleanQuery,
  instantQuery,
  integerItem,
  integerQuery,
  listQuery,
  nameItem,
  parseInstant,
  type ListItem,
} from "./query.js";
export { wireSchemas } from "./wireSchemas.js";
export { unknownDiscriminatorCodes, validateInput, type InputLocation } from "./validate.js";
export { decimalAtMostPattern, hexWordPattern } from "./numberPatterns.js";
