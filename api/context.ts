// What every request handler can reach: the broker's services and the authenticated principal.
import type { Client } from '@temporalio/client';
import type { Config } from '../core/config';
import type { Db } from '../core/db';
import type { Registry } from '../core/registry';
import type { SchemaRegistry } from '../core/schemas';
import type { Logger } from '../core/log';
import type { SigningKey, TokenVerifier } from '../core/auth';
import type { Entities } from '../core/entities';
import type { PersonalData } from '../core/personal-data';
import type { KeyRing } from '../core/secrets';

import type { SandboxRecord } from '../core/sandbox';
import type { OAuthState } from './oauth-state';
import type { TransparencyLog } from '../read-model/transparency-log';

export interface Services {
  config: Config;
  db: Db;
  temporal: Client;
  /** The one way to create resources, send them commands and run flows (core/entities.ts). */
  entities: Entities;
  registry: Registry;
  schemas: SchemaRegistry;
  verifyToken: TokenVerifier;
  signingKey?: SigningKey;
  /** Revoked tokens, jwks_uri key sets, DPoP nonces and trust anchors (api/oauth-state.ts). */
  oauth: OAuthState;
  /** Seals and opens the secrets the broker reads back (webhook signing secrets; core/secrets.ts). */
  secrets: KeyRing;
  /** Seals personal data under its record's key and opens it on the way out (core/personal-data.ts). */
  personalData: PersonalData;
  log: Logger;
  /** The transparency log's checkpoints and proofs (read-model/transparency-log.ts). */
  transparencyLog: TransparencyLog;
  /** Development mode only: the record of connectors' requests and injected faults (api/sandbox.ts). */
  sandbox?: SandboxRecord;
}

/** The caller after gates 1-3: a verified token of an active connector or user of an active organization. */
export interface Principal {
  organizationId: string;
  /** The connector, or for a user the client (the console) its token was issued to. */
  clientId: string;
  /** An interactive user (the token's subject), absent for a connector. */
  userId?: string;
  /** Gate 10's roles: the connector's actorRoles, or the user's roles. */
  actorRoles: string[];
  scopes: Set<string>;
  /** A protocol operator: an organization with role operator, token with exchange:admin. */
  operator: boolean;
  /** Identifies the token for per-token rate limits. */
  tokenId: string;
  /** When the token expires (ms since the epoch), if it says: a stream it opened ends then (GET /events/stream). */
  expiresAt?: number;
}

/** The documents the broker serves (implemented by api/documents.ts, which depends on the routers). */
export interface ServedDocuments {
  openapi(schemaBase: string, publicBaseUrl?: string): unknown;
  bundled(publicBaseUrl: string): unknown;
  asyncapi(publicBaseUrl: string): unknown;
}

export interface AppEnv {
  Variables: {
    services: Services;
    /** The broker's documents (api/documents.ts), built once from the declarations. */
    documents: ServedDocuments;
    correlationId: string;
    principal: Principal;
  };
}
