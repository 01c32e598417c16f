// The read-model database of the broker: read-model/schema.sql, and a table of the standard shape for
// every resource kind whose read model is standard (domain/resource.ts, `readModel`), created from
// its definition: adding such a kind needs no SQL.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDb, type Db, type Queryable } from '../core/db';
import { RESOURCES } from '../domain/registry';
import type { Resource } from '../domain/resource';

/**
 * The standard shape: id, version, owner, the participants that may read it besides the owner,
 * status, times and the document (written by projectDocument, read-model/projection-document.ts);
 * indexes on its participants, its owner and the document fields its lists filter by.
 */
export function standardTable(resource: Resource<any, any>): string[] {
  const t = resource.table;
  if (!/^[a-z_]+$/.test(t)) throw new Error(`not a table name: ${t}`);
  return [
    `create table if not exists ${t} (
      id uuid primary key,
      resource_version integer not null,
      owner_organization_id text not null,
      participants text[] not null default '{}',
      status text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      doc jsonb not null
    )`,
    `create index if not exists ${t}_participants on ${t} using gin (participants)`,
    `create index if not exists ${t}_owner on ${t} (owner_organization_id)`,
    ...(resource.indexedFields ?? []).map((field) => {
      if (!/^[A-Za-z]+$/.test(field)) throw new Error(`not a document field: ${field}`);
      return `create index if not exists ${t}_doc_${field.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`)} on ${t} ((doc->>'${field}'))`;
    }),
  ];
}

/** The statements that create the standard tables of `resources`. */
export const standardTables = (resources: readonly Resource<any, any>[]) => resources.filter((r) => (r.readModel ?? 'standard') === 'standard').flatMap(standardTable);

/** The statements of schema.sql beside this file: the tables of own shape, the outbox, the stores. */
export function schemaStatements(): string[] {
  return readFileSync(join(__dirname, 'schema.sql'), 'utf8').split(/;\s*$/m).map((s) => s.trim()).filter(Boolean);
}

/** The read model with every table the registry's kinds need. */
export function openReadModel(options: Omit<Parameters<typeof openDb>[0], 'schema'>, resources: readonly Resource<any, any>[] = RESOURCES): Promise<Db> {
  return openDb({ ...options, schema: [...schemaStatements(), ...standardTables(resources)] });
}

/** Whether the database answers a trivial query (GET /health/ready). */
export async function databaseAnswers(db: Queryable): Promise<void> {
  await db.query('select 1');
}
