export { deploymentDataOf } from "./deploymentData.js";
export { DEPLOYMENT_FILE_NAME, renderJson, tokenCatalogFile } from "./deploymentFiles.js";
export { loadTokenCatalog, type TokenCatalog } from "./tokenCatalog.js";
