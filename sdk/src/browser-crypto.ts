// node:crypto in the browser build of the SDK (sdk/src/browser.ts): only what a browser client can
// reach. The connector-only paths (private_key_jwt, DPoP) import more; in a browser they say so.
function connectorsOnly(): never {
  throw new Error('private keys and DPoP proofs are for connectors: the browser build of the SDK signs nothing');
}
export const randomUUID = (): string => globalThis.crypto.randomUUID();
export const createHash = connectorsOnly;
export const createPrivateKey = connectorsOnly;
export const createPublicKey = connectorsOnly;
export const generateKeyPairSync = connectorsOnly;
export const sign = connectorsOnly;
