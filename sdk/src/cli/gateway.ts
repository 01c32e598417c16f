// `pcx gateway ...`: the adapter gateway (docs/adapters.md) from a shell, with the profile's own
// exchange token (the gateway asks the broker whether it is valid; the organization is the
// token's): send a message, read what became of it, list, inspect, correct-and-release or discard
// quarantined messages, read the organization's adapter health, reconcile now.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { PcxProblemError, type Problem } from '../errors';
import type { PcxClient } from '../client';
import type { Output } from './output';

export interface GatewayCli {
  io: { env: NodeJS.ProcessEnv };
  client(out: Output): PcxClient;
  run<A extends unknown[]>(fn: (out: Output, ...args: A) => Promise<void>): (...args: A) => Promise<void>;
}

const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8090';

export function gatewayCommands(program: Command, cli: GatewayCli): void {
  const gateway = program
    .command('gateway')
    .description('the adapter gateway: EDIFACT, EPCIS and spreadsheet messages of your organization')
    .option('--gateway-url <url>', `the gateway's URL (else PCX_GATEWAY_URL, else ${DEFAULT_GATEWAY_URL})`);
  const { run } = cli;

  /** A call to the gateway with the profile's token; a refusal becomes the same error as the broker's. */
  const call = async (out: Output, method: string, path: string, body?: { bytes: Buffer; name?: string; type?: string }, more: Record<string, string> = {}): Promise<any> => {
    const base = (gateway.opts<{ gatewayUrl?: string }>().gatewayUrl ?? cli.io.env.PCX_GATEWAY_URL ?? DEFAULT_GATEWAY_URL).replace(/\/+$/, '');
    const headers: Record<string, string> = { authorization: `Bearer ${await cli.client(out).accessToken()}`, accept: 'application/json', ...more };
    if (body?.name) headers['x-message-name'] = body.name;
    if (body?.type) headers['content-type'] = body.type;
    const answer = await fetch(`${base}${path}`, { method, headers, ...(body ? { body: new Uint8Array(body.bytes) } : {}) });
    const text = await answer.text();
    const data = text ? JSON.parse(text) : undefined;
    if (!answer.ok) throw new PcxProblemError(data as Problem, { method, path });
    return data;
  };
  const file = (path: string) => ({ bytes: readFileSync(path === '-' ? 0 : path), name: path === '-' ? 'stdin' : basename(path) });

  gateway
    .command('send <format> <file>')
    .description('send a message (format: edifact, epcis or spreadsheet; file - for stdin) and show what became of it')
    .action(run(async (out, format: string, path: string) => out.data(await call(out, 'POST', `/messages/${encodeURIComponent(format)}`, file(path)))));

  gateway
    .command('message <id>')
    .description('what became of a message: its status, its quarantine reasons or what it created, its acknowledgements')
    .action(run(async (out, id: string) => out.data(await call(out, 'GET', `/messages/any/${encodeURIComponent(id)}`))));

  const quarantine = gateway.command('quarantine').description('messages held because they could not be acted on');
  quarantine
    .command('list', { isDefault: true })
    .description('your organization\'s quarantined messages, newest first')
    .action(
      run(async (out) => {
        const { items } = await call(out, 'GET', '/quarantine');
        const rows = items.map((q: any) => ({ ...q, reason: q.reasons.map((r: any) => `${r.code}${r.position ? ` at ${r.position}` : ''}`).join('; ') }));
        out.table(rows, ['inboxId', 'state', 'format', 'name', 'receivedAt', 'reason']);
      }),
    );
  quarantine
    .command('show <id>')
    .description('one held message: every reason with its position, and the message as received')
    .action(run(async (out, id: string) => out.data(await call(out, 'GET', `/quarantine/${encodeURIComponent(id)}`))));
  quarantine
    .command('release <id> <file>')
    .description('send the corrected message in place of the held one (it takes the path of a new message)')
    .action(run(async (out, id: string, path: string) => out.data(await call(out, 'POST', `/quarantine/${encodeURIComponent(id)}/release`, file(path)))));
  quarantine
    .command('discard <id>')
    .description('close a held message without acting on it')
    .action(run(async (out, id: string) => out.data(await call(out, 'POST', `/quarantine/${encodeURIComponent(id)}/discard`))));

  const settings = gateway.command('settings').description("your organization's adapter settings: what its messages become and how they are read");
  settings
    .command('show', { isDefault: true })
    .description('the settings in force, their version, and the identities the operator set')
    .action(run(async (out) => out.data(await call(out, 'GET', '/settings'))));
  settings
    .command('set <file>')
    .description('replace the settings with a JSON file (what `settings show` prints under "settings"; - for stdin); needs connectors:manage')
    .option('--version <n>', 'the version you changed (refused if another change came first); default: the version in force now')
    .action(
      run(async (out, path: string, options: { version?: string }) => {
        const version = options.version ?? String((await call(out, 'GET', '/settings')).version);
        const bytes = readFileSync(path === '-' ? 0 : path);
        out.data(await call(out, 'PUT', '/settings', { bytes, type: 'application/json' }, { 'if-match': `"${version}"` }));
      }),
    );

  gateway
    .command('status')
    .description('your organization\'s adapters: messages, backlog, quarantine, mapping failures, feed lag, dead letters, pushes')
    .action(run(async (out) => out.data(await call(out, 'GET', '/status'))));
  gateway
    .command('reconcile')
    .description('catch up with the exchange now and check the mapping state against it; prints what was repaired')
    .action(run(async (out) => out.data(await call(out, 'POST', '/reconcile'))));
}
