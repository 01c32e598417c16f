// An organization's adapter settings, managed through the gateway's API (GET and PUT /settings)
// and in force for the next message, without a restart: what its IFTMIN become (publish or draft,
// visibility, body types, time zone, ...), how its spreadsheets are read, its EPCIS readings, what
// it is sent (milestones, push target), its own places, whether its final milestones report
// outcomes.
//
// The served organizations, their credentials and their identities (EDIFACT sender ids and the
// gateway id answered as, EPCIS GLNs) stay the operator's (GATEWAY_ORGANIZATIONS_FILE): an
// identity decides which messages act for an organization, so an organization cannot claim one.
// The file's settings are each organization's first version; a PUT replaces them as a whole
// (gateway_settings, its version answered as the ETag and required in If-Match).
//
// Every gateway process keeps the settings in memory (`current`, synchronous for the mapping
// steps), reloads them every few seconds (another process may have changed them) and at once
// after its own PUT.
import Ajv from 'ajv';
import type { Db } from '../core/db';
import type { ServedOrganization } from './config';
import { settingsProblems as spreadsheetProblems } from './spreadsheet/settings';

/** The settings an organization manages: every member of ServedOrganization but its credential and identities. */
export const EDITABLE = ['loadRequests', 'spreadsheet', 'epcis', 'outbound', 'places', 'reportOutcomes', 'edifact'] as const;
export type EditableSettings = Partial<Pick<ServedOrganization, (typeof EDITABLE)[number]>>;

/** Identities inside editable members: the operator's (the file's), never set through the API. */
const IDENTITIES: ReadonlyArray<[string, string]> = [['edifact', 'senderIds'], ['edifact', 'gatewayId'], ['epcis', 'glns']];

export const SETTINGS_SCHEMA: readonly string[] = [
  `create table if not exists gateway_settings (
    organization_id text primary key,
    version integer not null,
    settings jsonb not null,
    updated_at timestamptz not null default now(),
    updated_by text not null
  )`,
];

const ZONE = { type: 'string', minLength: 1, maxLength: 64 };
const schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    loadRequests: {
      type: 'object',
      additionalProperties: false,
      required: ['publish'],
      properties: {
        publish: { type: 'boolean' },
        visibility: { type: 'object' },
        bodyTypes: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 40 } },
        expiresBeforePickupHours: { type: 'number', minimum: 0, maximum: 8760 },
        timeZone: ZONE,
        goodsCategory: { type: 'string', minLength: 1, maxLength: 40 },
        pointTimeMinutes: { type: 'integer', minimum: 1, maximum: 1440 },
      },
    },
    spreadsheet: { type: 'object' },
    epcis: {
      type: 'object',
      additionalProperties: false,
      properties: {
        referenceTypes: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 200 } },
        bizSteps: { type: 'object', maxProperties: 100, additionalProperties: { type: ['string', 'null'], maxLength: 40 } },
      },
    },
    outbound: {
      type: 'object',
      additionalProperties: false,
      properties: {
        milestones: { enum: ['edifact', 'epcis'] },
        push: {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          properties: { url: { type: 'string', pattern: '^https://', maxLength: 2000 }, secret: { type: 'string', pattern: '^whsec_', maxLength: 200 } },
        },
      },
    },
    places: { type: 'object', maxProperties: 10000, additionalProperties: { type: 'string', pattern: '^[A-Z]{2}[A-Z2-9]{3}$' } },
    reportOutcomes: { type: 'boolean' },
    edifact: {
      type: 'object',
      additionalProperties: false,
      properties: { system: { type: 'string', minLength: 1, maxLength: 100 }, timeZone: ZONE },
    },
  },
} as const;
const validate = new Ajv({ allErrors: true }).compile(schema);

const validZone = (zone: unknown) => {
  if (typeof zone !== 'string') return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

/** What keeps settings from being used, each with its JSON Pointer: the schema, time zones, the spreadsheet's own rules. */
export function settingsProblems(settings: unknown): Array<{ pointer: string; message: string }> {
  const claimed = IDENTITIES.filter(([member, field]) => ((settings as Record<string, Record<string, unknown> | undefined> | null)?.[member] ?? {})[field] !== undefined);
  if (claimed.length) return claimed.map(([member, field]) => ({ pointer: `/${member}/${field}`, message: "is the operator's: an identity decides which messages act for the organization (GATEWAY_ORGANIZATIONS_FILE)" }));
  if (!validate(settings)) return (validate.errors ?? []).map((e) => ({ pointer: e.instancePath || '/', message: `${e.message ?? 'is not valid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}` }));
  const s = settings as EditableSettings;
  const out: Array<{ pointer: string; message: string }> = [];
  if (!validZone(s.loadRequests?.timeZone)) out.push({ pointer: '/loadRequests/timeZone', message: 'is not an IANA time zone (Europe/Vienna)' });
  if (!validZone(s.edifact?.timeZone)) out.push({ pointer: '/edifact/timeZone', message: 'is not an IANA time zone (Europe/Vienna)' });
  if (s.spreadsheet !== undefined) {
    for (const p of spreadsheetProblems(s.spreadsheet)) out.push({ pointer: `/${p.path.replace(/^settings\./, '').replace(/\./g, '/')}`, message: p.message });
  }
  return out;
}

/** An organization's settings as the API shows them. */
export interface SettingsView {
  organizationId: string;
  /** 0 while the operator's file is all there is; the ETag. */
  version: number;
  updatedAt: string | null;
  updatedBy: string | null;
  settings: EditableSettings;
  /** The operator's: which messages act for the organization. */
  identities: { edifactSenderIds: readonly string[]; edifactGatewayId?: string; epcisGlns: readonly string[] };
}

const editableOf = (org: ServedOrganization): EditableSettings => {
  const out: Record<string, unknown> = {};
  for (const key of EDITABLE) if (org[key] !== undefined) out[key] = structuredClone(org[key]);
  const edifact = out.edifact as Record<string, unknown> | undefined;
  if (edifact) {
    delete edifact.senderIds;
    delete edifact.gatewayId;
    if (!Object.keys(edifact).length) delete out.edifact;
  }
  const epcis = out.epcis as Record<string, unknown> | undefined;
  if (epcis) {
    delete epcis.glns;
    if (!Object.keys(epcis).length) delete out.epcis;
  }
  return out as EditableSettings;
};

/** The file's organization with its editable members replaced by `settings`, its identities kept. */
function merged(file: ServedOrganization, settings: EditableSettings): ServedOrganization {
  const org: ServedOrganization = { organizationId: file.organizationId, clientId: file.clientId, clientSecret: file.clientSecret, ...structuredClone(settings) };
  if (file.edifact?.senderIds || file.edifact?.gatewayId) org.edifact = { ...(org.edifact ?? {}), senderIds: file.edifact.senderIds, ...(file.edifact.gatewayId ? { gatewayId: file.edifact.gatewayId } : {}) };
  if (file.epcis?.glns) org.epcis = { ...(org.epcis ?? {}), glns: file.epcis.glns };
  return org;
}

export class SettingsConflict extends Error {
  constructor(readonly current: number) {
    super(`the settings are at version ${current}`);
  }
}

export interface Settings {
  /** Every served organization with its settings in force. */
  current(): readonly ServedOrganization[];
  of(organizationId: string): ServedOrganization | undefined;
  view(organizationId: string): SettingsView | undefined;
  /** Replaces the organization's settings if it is at `version`; identities in them are ignored (the operator's). */
  put(organizationId: string, settings: EditableSettings, version: number, by: string): Promise<SettingsView>;
  /** Reads what other processes wrote. */
  reload(): Promise<void>;
  stop(): void;
}

export async function createSettings(db: Db, files: readonly ServedOrganization[], options: { reloadMs?: number } = {}): Promise<Settings> {
  for (const statement of SETTINGS_SCHEMA) await db.query(statement);
  const stored = new Map<string, { version: number; settings: EditableSettings; updatedAt: string; updatedBy: string }>();
  let organizations: readonly ServedOrganization[] = files;
  const rebuild = () => {
    organizations = files.map((file) => {
      const row = stored.get(file.organizationId);
      return row ? merged(file, row.settings) : file;
    });
  };
  const reload = async () => {
    const rows = await db.query<{ organization_id: string; version: number; settings: EditableSettings; updated_at: Date | string; updated_by: string }>(`select * from gateway_settings`);
    stored.clear();
    for (const r of rows.rows) stored.set(r.organization_id, { version: r.version, settings: r.settings, updatedAt: new Date(r.updated_at).toISOString(), updatedBy: r.updated_by });
    rebuild();
  };
  await reload();
  const timer = setInterval(() => void reload().catch(() => undefined), options.reloadMs ?? 3000);
  timer.unref();

  const view = (organizationId: string): SettingsView | undefined => {
    const file = files.find((o) => o.organizationId === organizationId);
    if (!file) return undefined;
    const row = stored.get(organizationId);
    return {
      organizationId,
      version: row?.version ?? 0,
      updatedAt: row?.updatedAt ?? null,
      updatedBy: row?.updatedBy ?? null,
      settings: editableOf(row ? merged(file, row.settings) : file),
      identities: { edifactSenderIds: file.edifact?.senderIds ?? [], ...(file.edifact?.gatewayId ? { edifactGatewayId: file.edifact.gatewayId } : {}), epcisGlns: file.epcis?.glns ?? [] },
    };
  };

  return {
    current: () => organizations,
    of: (id) => organizations.find((o) => o.organizationId === id),
    view,
    async put(organizationId, settings, version, by) {
      const clean = editableOf({ organizationId, clientId: '', clientSecret: '', ...settings } as ServedOrganization);
      const r = await db.query(
        version === 0
          ? `insert into gateway_settings (organization_id, version, settings, updated_by) values ($1, 1, $2, $3) on conflict do nothing`
          : `update gateway_settings set version = version + 1, settings = $2, updated_at = now(), updated_by = $3 where organization_id = $1 and version = $4`,
        version === 0 ? [organizationId, JSON.stringify(clean), by] : [organizationId, JSON.stringify(clean), by, version],
      );
      await reload();
      if (!r.rowCount) throw new SettingsConflict(stored.get(organizationId)?.version ?? 0);
      return view(organizationId)!;
    },
    reload,
    stop: () => clearInterval(timer),
  };
}

