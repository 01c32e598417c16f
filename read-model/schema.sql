-- Read models, outbox and protocol bookkeeping. Temporal holds lifecycle state; these tables are
-- projections of it (written by activities) plus the API's durable idempotency and rate counters.
-- Every statement is idempotent: the file is applied at each start.

create table if not exists partner_relationships (
  id uuid primary key,
  resource_version integer not null,
  requesting_organization_id text not null,
  accepting_organization_id text not null,
  status text not null,
  effective_from timestamptz,
  effective_until timestamptz,
  -- Set once requested: the accepting organization sees the relationship from then on (rule 7).
  submitted_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  doc jsonb not null
);
create index if not exists partner_relationships_requesting on partner_relationships (requesting_organization_id, status);
create index if not exists partner_relationships_accepting on partner_relationships (accepting_organization_id, status);

-- At most one non-terminated relationship per organization pair (rule 2): the API claims the
-- unordered pair before it starts the workflow; the projection frees it on termination.
create table if not exists relationship_pairs (
  pair_key text primary key,
  relationship_id uuid not null,
  requesting_organization_id text not null,
  created_at timestamptz not null default now()
);
create index if not exists relationship_pairs_requesting on relationship_pairs (requesting_organization_id);

-- Outbox and pull feed. tx_id orders the feed: a reader only sees rows whose transaction is older
-- than every transaction still running, so a cursor never skips a row that commits late.
create table if not exists events (
  seq bigserial primary key,
  tx_id xid8 not null default pg_current_xact_id(),
  id uuid not null unique,
  resource_kind text not null,
  resource_id uuid not null,
  resource_version integer not null,
  type text not null,
  owner_organization_id text not null,
  audience text[] not null,
  -- For events shared with partners: the scope their relationship must still grant when the
  -- feed serves the event (suspension stops sharing at once). Null: audience only.
  share_scope text,
  created_at timestamptz not null default now(),
  cloudevent jsonb not null
);
create index if not exists events_feed on events (tx_id, seq);
create index if not exists events_audience on events using gin (audience);
create index if not exists events_resource on events (resource_id, resource_version);

create table if not exists idempotency_keys (
  organization_id text not null,
  operation text not null,
  key text not null,
  request_hash text not null,
  command_id uuid not null,
  -- Who holds the claim: a retry that takes over a lapsed claim gets a new token, and only the
  -- holder may complete or release it.
  claim_token uuid not null,
  state text not null,
  locked_until timestamptz not null,
  response_status integer,
  response_headers jsonb,
  response_body jsonb,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (organization_id, operation, key)
);
create index if not exists idempotency_keys_expiry on idempotency_keys (expires_at);

create table if not exists rate_counters (
  bucket text not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (bucket, window_start)
);

-- The jti of every client assertion (private_key_jwt) the token endpoint accepted, until the
-- assertion expires: the primary key makes a replay fail on every replica at once.
create table if not exists client_assertion_jtis (
  client_id text not null,
  jti text not null,
  expires_at timestamptz not null,
  primary key (client_id, jti)
);
create index if not exists client_assertion_jtis_expiry on client_assertion_jtis (expires_at);

-- Access tokens revoked before their expiry (RFC 7009, POST /oauth2/revoke), by jti, until they
-- expire: gate 1 refuses them on every replica (read-model/revoked-tokens.ts keeps them in memory).
create table if not exists revoked_tokens (
  jti text primary key,
  client_id text not null,
  expires_at timestamptz not null,
  revoked_at timestamptz not null default now()
);
create index if not exists revoked_tokens_expiry on revoked_tokens (expires_at);

-- When each key of a managed connector last got a token (its admins read it as lastUsedAt): a
-- fact of use, not of the connector's lifecycle, so kept beside its read model, not in it.
create table if not exists credential_uses (
  client_id text not null,
  credential_id text not null,
  last_used_at timestamptz not null,
  primary key (client_id, credential_id)
);

-- Read models of the listings: CapacityOffer and LoadRequest share one shape. window_* is the
-- availability window (offers) or pickup start to delivery end (requests); *_box are bounding
-- boxes [minLon, minLat, maxLon, maxLat] of origin/pickup and destination/delivery areas.
create table if not exists capacity_offers (
  id uuid primary key,
  resource_version integer not null,
  owner_organization_id text not null,
  status text not null,
  visibility_mode text,
  visibility_organization_ids text[] not null default '{}',
  visibility_groups text[] not null default '{}',
  window_start timestamptz,
  window_end timestamptz,
  origin_box float8[],
  destination_box float8[],
  created_at timestamptz not null,
  updated_at timestamptz not null,
  doc jsonb not null
);
create index if not exists capacity_offers_owner on capacity_offers (owner_organization_id, status);
create index if not exists capacity_offers_status on capacity_offers (status);

-- Same shape, same indexes.
create table if not exists load_requests (like capacity_offers including all);

-- Matching (docs/decisions.md, "Candidate search"). One GiST index per table over the boxes and
-- the time range answers "open listings whose areas reach mine in my time window" in one probe;
-- the query keeps the partners' listings. Offers: match_origin/match_destination are the origin
-- and destination boxes grown by the maximum detour, match_window the availability. Requests: the
-- pickup and delivery boxes and the pickup window. Partial: only open listings. The first indexes
-- (*_match) led with the owner organization (btree_gist) and were probed once per partner, as
-- many probes as partners; they are replaced by the *_reach indexes (docs/benchmarks.md, matching).
create extension if not exists btree_gist;
alter table capacity_offers add column if not exists match_origin box;
alter table capacity_offers add column if not exists match_destination box;
alter table capacity_offers add column if not exists match_window tstzrange;
alter table capacity_offers add column if not exists reversible boolean not null default false;
alter table capacity_offers add column if not exists counterparts text[] not null default '{}';
alter table load_requests add column if not exists match_origin box;
alter table load_requests add column if not exists match_destination box;
alter table load_requests add column if not exists match_window tstzrange;
alter table load_requests add column if not exists reversible boolean not null default false;
alter table load_requests add column if not exists counterparts text[] not null default '{}';
drop index if exists capacity_offers_match;
drop index if exists load_requests_match;
create index if not exists capacity_offers_reach on capacity_offers
  using gist (match_origin, match_destination, match_window)
  where status in ('published', 'partiallyMatched');
create index if not exists load_requests_reach on load_requests
  using gist (match_origin, match_destination, match_window)
  where status in ('published', 'proposed');
create index if not exists capacity_offers_counterparts on capacity_offers using gin (counterparts);
create index if not exists load_requests_counterparts on load_requests using gin (counterparts);

-- ExecutionReference's milestones and outcome chain, in tables of their own beside its standard
-- table (read-model/database.ts; activities/execution-reference.ts projects them). Nothing here
-- is ever deleted.
create table if not exists execution_updates (
  id uuid primary key,
  execution_reference_id uuid not null,
  participants text[] not null,
  occurred_at timestamptz not null,
  recorded_at timestamptz not null,
  doc jsonb not null
);
create index if not exists execution_updates_reference on execution_updates (execution_reference_id, occurred_at);
create table if not exists execution_outcomes (
  id uuid primary key,
  execution_reference_id uuid not null,
  participants text[] not null,
  resource_version integer not null,
  head boolean not null,
  submitted_at timestamptz not null,
  doc jsonb not null
);
create index if not exists execution_outcomes_reference on execution_outcomes (execution_reference_id, submitted_at)
;

-- The standard tables are created from the resource definitions (read-model/database.ts); their
-- indexes on document fields were named by hand before, so those names go.
drop index if exists match_proposals_offer;
drop index if exists match_proposals_request;
drop index if exists transport_commitments_tender;
drop index if exists execution_references_proposal;
drop index if exists execution_handovers_commitment;

-- Webhook subscriptions (api/webhook-subscriptions.ts) and their deliveries (activities/webhooks.ts).
-- A subscription's workflow (workflows/webhooks.ts) collects the events after `cursor_tx`,
-- `cursor_seq` that its organization's feed holds into deliveries and attempts them.
create table if not exists webhook_subscriptions (
  id uuid primary key,
  organization_id text not null,
  client_id text not null,
  url text not null,
  event_types text[] not null,
  description text,
  active boolean not null,
  disabled_reason text,
  disabled_at timestamptz,
  -- [{ sealed, createdAt, expiresAt? }], newest first: every unexpired one signs. `sealed`: the
  -- secret under the key ring (core/secrets.ts); rows from before sealing hold `secret` in clear
  -- until re-sealed (at start, or npm run secrets:rotate).
  secrets jsonb not null,
  version integer not null,
  cursor_tx xid8 not null,
  cursor_seq bigint not null,
  -- Since when every attempt has failed (null after a success): disables after WEBHOOK_DISABLE_AFTER_HOURS.
  failing_since timestamptz,
  deleted_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index if not exists webhook_subscriptions_org on webhook_subscriptions (organization_id, created_at, id);

create table if not exists webhook_deliveries (
  id uuid primary key,
  subscription_id uuid not null,
  event_id uuid not null,
  event_tx xid8 not null,
  event_seq bigint not null,
  event_type text not null,
  event_time timestamptz not null,
  subject text not null,
  resource_version integer,
  -- pending | succeeded | dead-lettered | skipped
  status text not null,
  attempts jsonb not null default '[]',
  attempt_count integer not null default 0,
  next_attempt_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (subscription_id, event_id)
);
-- A pending delivery being attempted: no other pump attempts it (nor its subject's later events)
-- before this time, so the watcher's direct path and the subscription's workflow never send twice.
alter table webhook_deliveries add column if not exists claimed_until timestamptz;
-- The head of each subject's queue: the earliest pending delivery by feed order.
create index if not exists webhook_deliveries_pending on webhook_deliveries (subscription_id, subject, event_tx, event_seq) where status = 'pending';
create index if not exists webhook_deliveries_list on webhook_deliveries (subscription_id, created_at, id);

-- The slow hashes of managed connectors' generated client secrets (core/client-secrets.ts): never
-- in the connector's record, its events or the idempotency store; one per credential.
create table if not exists client_secret_hashes (
  client_id text not null,
  credential_id text not null,
  secret_hash text not null,
  created_at timestamptz not null default now(),
  primary key (client_id, credential_id)
);

-- A command sent to an entity whose transition its sender has not written yet (core/entities.ts;
-- docs/decisions.md, "A command at the price of one Update"). Written before the Update is sent,
-- cleared in the transaction that writes the answer; one left behind (its sender died) is swept by
-- any process after sweep_after, which asks Temporal for the Update's answer and writes it.
create table if not exists command_intents (
  command_id text primary key,
  workflow_id text not null,
  kind text not null,
  created_at timestamptz not null default now(),
  sweep_after timestamptz not null
);

create index if not exists command_intents_sweep on command_intents (sweep_after);

-- The feed's histories (issue 34, backup and restore): the first made with the database; a restore
-- to an earlier point starts another (npm run restored), whose floor is the newest event the
-- restored database kept. A cursor names its history: one of an earlier history past the floor of
-- a later one names events that are gone (410 FEED_HISTORY_CHANGED, api/events.ts).
create table if not exists feed_histories (
  ordinal integer primary key,
  id uuid not null unique,
  started_at timestamptz not null default now(),
  floor_tx xid8,
  floor_seq bigint
);
insert into feed_histories (ordinal, id) values (1, gen_random_uuid()) on conflict (ordinal) do nothing;


-- Tombstones of records the retention purge removed (activities/retention.ts, docs/retention.md):
-- what went, when, under which policy, and who could read it (they read the tombstone and are
-- answered 410 for the record). `histories_deleted_at`: its Temporal histories are gone too (a
-- purge retried after a crash finishes that part).
create table if not exists purged_records (
  id uuid primary key,
  resource_kind text not null,
  owner_organization_id text not null,
  audience text[] not null,
  purged_at timestamptz not null,
  histories_deleted_at timestamptz,
  doc jsonb not null
);
create index if not exists purged_records_audience on purged_records using gin (audience);
create index if not exists purged_records_purged on purged_records (purged_at, id);

-- Retention holds an operator placed on a relationship (api/partner-relationships.ts, docs/retention.md):
-- while one is there the purge removes nothing linked to the relationship and erases none of its
-- handovers' contacts, whatever its policy, including after the relationship ended (a
-- retentionPolicyRef can change in draft only). Not in Temporal: a rebuild keeps the table.
create table if not exists retention_holds (
  relationship_id uuid primary key,
  placed_at timestamptz not null,
  doc jsonb not null
);

-- The purge rounds protocol operators asked for at once (POST /retention-runs): who, when, why
-- (api/retention.ts). The audit of the run-now command; the round's tombstones are in purged_records.
create table if not exists retention_runs (
  id uuid primary key,
  requested_at timestamptz not null default now(),
  doc jsonb not null
);
create index if not exists retention_runs_newest on retention_runs (requested_at desc, id desc);

-- The transparency log (RFC 9162; docs/transparency-log.md, read-model/transparency-log.ts): one
-- leaf per append-only record (a decision, a tender revision, a commitment's digest, an
-- acknowledgement, an outcome), appended in the transaction that writes the record; never updated
-- or deleted, not even by retention or erasure (a leaf holds hashes only). record_key names the
-- record (the API path of its document, and a JSON pointer into it); organizations, who may read
-- its proof. salt: 32 random bytes, given only with the proof, without which the leaf says nothing.
create table if not exists transparency_log_leaves (
  leaf_index bigint primary key,
  record_key text not null unique,
  record_digest text not null,
  salt text not null,
  leaf_hash text not null,
  organizations text[] not null,
  logged_at timestamptz not null default now()
);
create index if not exists transparency_log_leaves_organizations on transparency_log_leaves using gin (organizations);

-- The hash of every perfect subtree the log has completed (level 0: the leaves' hashes), so that a
-- root or a proof reads O(log n) rows.
create table if not exists transparency_log_nodes (
  level integer not null,
  node_index bigint not null,
  hash text not null,
  primary key (level, node_index)
);

-- Signed checkpoints (C2SP tlog-checkpoint as a signed note), one per tree size signed; cosignatures
-- of witnesses are added to a checkpoint's note as further signature lines.
create table if not exists transparency_log_checkpoints (
  tree_size bigint primary key,
  root_hash text not null,
  note text not null,
  signed_at timestamptz not null default now()
);

-- The transparency log's epochs after restores (read-model/transparency-log.ts `startLogEpoch`):
-- a restore brings the log back to the backup's size, so the log goes on under a new origin (the
-- configured one and `/epoch-<n>`) whose first leaf links it to the restored tree (its size and
-- root): never a silent fork of the checkpoints signed after the backup. None: the first epoch.
create table if not exists transparency_log_epochs (
  ordinal integer primary key,
  started_at timestamptz not null default now(),
  restored_size bigint not null,
  restored_root text not null
);
