// One SDK client per served organization, with its connector credential: every call the gateway
// makes for an organization is that organization's (its scopes, its visibility).
import { PcxClient } from '@pcx/sdk';
import type { GatewayConfig, ServedOrganization } from './config';

export type ClientOf = (org: ServedOrganization) => PcxClient;

export function createClients(config: Pick<GatewayConfig, 'brokerUrl'>): ClientOf {
  const clients = new Map<string, PcxClient>();
  return (org) => {
    let client = clients.get(org.organizationId);
    if (!client) clients.set(org.organizationId, (client = new PcxClient({ baseUrl: config.brokerUrl, clientId: org.clientId, clientSecret: org.clientSecret })));
    return client;
  };
}
