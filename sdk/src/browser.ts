// The SDK as a browser loads it: the planner console's only client of the broker. api/console-bundles.ts
// bundles this entry with esbuild when the console first asks for it (/console/app/sdk.js), with
// node:crypto replaced by sdk/src/browser-crypto.ts: what a browser client uses (a user's token,
// requests by template or by URL, problems as typed errors) runs on the Web Crypto API; what it
// cannot (client secrets, private keys, DPoP, mutual TLS) belongs to connectors, not to browsers.
export { PcxClient, operationOf, SDK_VERSION } from './client';
export { PcxProblemError, PcxError, PcxConnectionError, PcxTimeoutError, isProblem, PROBLEM_CODES } from './errors';
