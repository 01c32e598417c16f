// The development OpenID provider's storage (dev/oidc.ts): sessions, interactions, codes and grants
// in this process's memory, gone at a restart (a planner signs in again), which is what a
// development provider wants. Named explicitly so that oidc-provider does not warn at every start
// that it fell back to its own quick-start adapter; production uses an identity provider of its
// own (USER_OIDC_ISSUER), never this.
import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  expiresAt?: number;
}

// One store for every model (Session, Grant, AuthorizationCode, ...), keyed by model and id.
const store = new Map<string, Entry>();
const byUid = new Map<string, string>();
const byUserCode = new Map<string, string>();
const byGrant = new Map<string, Set<string>>();

export function memoryAdapter(model: string): Adapter {
  const key = (id: string) => `${model}:${id}`;
  const live = (k: string | undefined): AdapterPayload | undefined => {
    const entry = k === undefined ? undefined : store.get(k);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      store.delete(k!);
      return undefined;
    }
    return entry.payload;
  };
  return {
    async upsert(id, payload, expiresIn) {
      const k = key(id);
      store.set(k, { payload, ...(expiresIn ? { expiresAt: Date.now() + expiresIn * 1000 } : {}) });
      if (payload.uid) byUid.set(payload.uid, k);
      if (payload.userCode) byUserCode.set(payload.userCode, k);
      if (payload.grantId) byGrant.set(payload.grantId, (byGrant.get(payload.grantId) ?? new Set()).add(k));
    },
    find: async (id) => live(key(id)),
    findByUid: async (uid) => live(byUid.get(uid)),
    findByUserCode: async (userCode) => live(byUserCode.get(userCode)),
    async consume(id) {
      const entry = store.get(key(id));
      if (entry) entry.payload = { ...entry.payload, consumed: Math.floor(Date.now() / 1000) };
    },
    async destroy(id) {
      store.delete(key(id));
    },
    async revokeByGrantId(grantId) {
      for (const k of byGrant.get(grantId) ?? []) store.delete(k);
      byGrant.delete(grantId);
    },
  };
}
