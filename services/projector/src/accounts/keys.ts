// The layout is libs/read-models accounts.ts, which data-query reads by.
export { accountsKeys, BLOCKS_KEPT } from "@platform/read-models";
