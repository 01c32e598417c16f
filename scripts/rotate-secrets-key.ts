// Re-seals every stored secret (webhook signing secrets) under the newest key of the key ring
// (core/secrets.ts; docs/decisions.md, "Secrets at rest"):
//
//   npm run secrets:rotate                                   (the configuration of the environment: SECRETS_KEY_FILE, DATABASE_URL, DATA_DIR)
//   npm run secrets:rotate -- --new-key                      (first appends a new key to the key file, which becomes the primary)
//
// Row by row, each in its own transaction with the row locked: safe while the broker runs on
// PostgreSQL, and idempotent (a second run re-seals nothing). Secrets stored in clear before
// sealing are sealed too. Once it has run, the stored secrets need no other key than the primary;
// Temporal payloads sealed with an older key (core/payload-codec.ts) need it as long as their
// histories are kept (docs/deployment.md, "Temporal payloads encrypted").
// PGlite (npm start's embedded database) is owned by the running broker: stop it first, or
// restart it after adding the key (the broker re-seals at start by itself).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { loadConfigOrExit } from '../core/config';
import { generatedKeyFile, keyRingOf, newKeyId, parseKeyFile } from '../core/secrets';
import { openReadModel } from '../read-model/database';
import { resealSecrets } from '../read-model/webhook-subscriptions';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { 'new-key': { type: 'boolean' }, help: { type: 'boolean' } } });
  if (values.help) {
    process.stderr.write('usage: secrets:rotate [--new-key]   (with the environment of the broker: SECRETS_KEY_FILE, DATABASE_URL or DATA_DIR)\n');
    return 0;
  }
  const config = loadConfigOrExit();
  const file = config.secrets.keyFile ?? generatedKeyFile(config.dataDir);
  if (values['new-key']) {
    const text = readFileSync(file, 'utf8');
    const json = JSON.parse(text) as { primary?: string; keys: Array<Record<string, unknown>> };
    parseKeyFile(text, file);
    const id = newKeyId();
    json.keys.push({ id, key: randomBytes(32).toString('base64'), createdAt: new Date().toISOString() });
    delete json.primary; // the newest (last) key seals
    parseKeyFile(JSON.stringify(json), file);
    writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`, { mode: 0o600 });
    process.stderr.write(`key ${id} added to ${file}; it seals from now on (running brokers read the file again within seconds)\n`);
  }
  const { ring } = keyRingOf({ keyFile: config.secrets.keyFile, dataDir: config.dataDir });
  const db = await openReadModel({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const done = await resealSecrets(db, ring);
    process.stdout.write(`${JSON.stringify({ primary: ring.primary, ...done })}\n`);
    process.stderr.write(`${done.resealed} secrets of ${done.subscriptions} subscriptions sealed again under ${ring.primary}; keys other than ${ring.primary} may now leave ${file}\n`);
    return 0;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
