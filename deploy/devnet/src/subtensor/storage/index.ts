export { devnetStorageEntries, encodeChainIdentity, encodeSubnetIdentity, totalIssuanceEntry, type StorageEntry } from "./storageEntries.js";
