// @pcx/sdk: the typed client of the Partner Capacity Exchange broker (sdk/README.md).
export { PcxClient, COLLECTIONS, SDK_VERSION, operationOf } from './client';
export type {
  PcxClientOptions,
  CallOptions,
  CommandOptions,
  Target,
  Collection,
  ResourceClient,
  ResourceOf,
  ItemOf,
  CreateBody,
  Created,
  ListQuery,
  UpdateBody,
  ActionOf,
  CommandBody,
  CommandResult,
  Page,
  Answer,
} from './client';
export * from './errors';
export { ClientCredentials, StaticToken, DEFAULT_RETRY, type RetryPolicy, type RetryInfo, type TokenSource } from './transport';
export { waitFor, type WaitOptions } from './wait';
export { readBody } from './transport';
export { FeedConsumer, type FeedOptions, type FeedEvent, type CursorStore } from './feed';
export { createWebhookReceiver, MemoryAppliedStore, WebhookVerificationError } from './webhooks';
export { generateConnectorKey, publicOf, clientAssertion, thumbprint, algorithmOf, type PrivateJwk } from './keys';
export type { WebhookEvent, AppliedStore, ReceiveResult, WebhookReceiver, WebhookReceiverOptions, WebhookHeaders } from './webhooks';
export type { paths, components, operations } from './generated/openapi';
export { OPERATIONS, type OperationInfo } from './generated/operations';
export { DpopKey } from './dpop';
export { discover, tokenEndpointOf, type AuthorizationServerMetadata } from './discovery';
export { mutualTlsFetch } from './mutual-tls';
export { TransparencyMonitor, MemoryCheckpointStore, loggedKeys, type CheckpointStore, type TransparencyMonitorOptions, type VerifiedRecord } from './transparency-monitor';
export {
  TransparencyError,
  verifyInclusion,
  verifyConsistency,
  rootFromInclusionProof,
  verifyCheckpoint,
  parseCheckpoint,
  openNote,
  noteVerifier,
  cosign,
  generateNoteKey,
  hashLeaf,
  leafOf,
  loggedValue,
  recordDigest,
  type Checkpoint,
  type NoteVerifier,
} from './transparency';
