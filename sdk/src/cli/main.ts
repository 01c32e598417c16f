#!/usr/bin/env node
// `pcx`: the broker from a shell, built on the SDK (sdk/README.md, `pcx --help`).
import { Command, CommanderError, Option } from 'commander';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { PcxClient, SDK_VERSION, type Collection, type PcxClientOptions } from '../client';
import { StaleResourceVersionError } from '../errors';
import { generateConnectorKey, publicOf, type PrivateJwk } from '../keys';
import { LIST_COLUMNS, OPERATIONS, RESOURCE_NAMES } from '../generated/operations';
import { gatewayCommands } from './gateway';
import { transparencyLogCommands, verifyingReads } from './transparency-log';
import { createOutput, describeError, EXIT, exitCodeOf, wantsColor, type Output } from './output';
import { profilesPath, readProfiles, resolveProfile, writeProfiles, type Profile } from './profiles';

/** The CLI's names of the collections and the columns of their tables, as the document gives them (x-pcx-client). */
export const RESOURCES: Record<string, { collection: Collection; columns: readonly string[] }> = Object.fromEntries(
  Object.entries(RESOURCE_NAMES).map(([name, collection]) => [name, { collection, columns: LIST_COLUMNS[name as keyof typeof RESOURCE_NAMES] }]),
);

interface Globals {
  profile?: string;
  baseUrl?: string;
  json: boolean;
  color: boolean;
  verify?: boolean;
}

export function buildProgram(io: { out: NodeJS.WritableStream & { isTTY?: boolean }; err: NodeJS.WritableStream & { isTTY?: boolean }; env: NodeJS.ProcessEnv } = { out: process.stdout, err: process.stderr, env: process.env }): Command {
  const program = new Command('pcx')
    .description('The Partner Capacity Exchange broker from the command line: resources, commands, the event feed.')
    .version(SDK_VERSION)
    .option('-p, --profile <name>', 'credentials profile (pcx login); default: PCX_PROFILE or the default profile')
    .option('--base-url <url>', "the broker's URL (overrides the profile and PCX_BASE_URL)")
    .option('--json', 'machine output: JSON on stdout, nothing else there', false)
    .option('--no-color', 'no colour (also NO_COLOR, or when not a terminal)')
    .option('--verify', "prove the decisions, revisions, digests, acknowledgements and outcomes of what `get` reads in the broker's transparency log (pcx verify's kept checkpoint)")
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) })
    .showHelpAfterError()
    .exitOverride()
    .addHelpText(
      'after',
      `
Profiles are kept in ${profilesPath(io.env)} (mode 600). PCX_BASE_URL, PCX_CLIENT_ID and PCX_CLIENT_SECRET override them.

Exit codes: 0 done; 1 failed; 2 usage; 3 invalid request (400); 4 not authenticated or not allowed (401, 403);
5 not found (404); 6 conflict, e.g. a stale version (409); 7 refused in this state (422, 428);
8 rate limited or unavailable after retries (429, 5xx); 9 broker unreachable or no answer in time.

Examples:
  pcx login --base-url http://localhost:3000 --client-id carrier-connector
  pcx offers create --file offer.json
  pcx offers publish 01JZ...            (If-Match: the version read just before, or --if-match)
  pcx proposals decide 01JZ... accept
  pcx wait proposal --request 01JZ...
  pcx events tail --follow --json
  pcx verify                            (your records proven in the transparency log)`,
    );

  const cli = cliContext(program, io);
  loginCommands(program, cli);
  keyCommands(program, cli);
  resourceCommands(program, cli);
  decisionCommands(program, cli);
  eventCommands(program, cli);
  waitCommands(program, cli);
  requestCommand(program, cli);
  gatewayCommands(program, cli);
  transparencyLogCommands(program, cli);
  return program;
}

/** What every command's action shares: the streams, the global options, the client of the profile, and error handling. */
interface Cli {
  io: { out: NodeJS.WritableStream & { isTTY?: boolean }; err: NodeJS.WritableStream & { isTTY?: boolean }; env: NodeJS.ProcessEnv };
  globals(): Globals;
  client(out: Output): PcxClient;
  run<A extends unknown[]>(fn: (out: Output, ...args: A) => Promise<void>): (...args: A) => Promise<void>;
}

function cliContext(program: Command, io: Cli['io']): Cli {
  const globals = (): Globals => program.opts<Globals>();
  const output = (): Output => createOutput({ json: globals().json, color: wantsColor(io.out, globals().color, io.env) }, { out: io.out, err: io.err });
  const client = (out: Output): PcxClient => {
    const { name, profile } = resolveProfile(globals().profile, io.env);
    const baseUrl = globals().baseUrl ?? profile.baseUrl;
    if (!baseUrl || !profile.clientId || !(profile.clientSecret || profile.privateKeyFile || profile.certificateFile)) {
      throw new UsageError(`no credentials for profile "${name}": run \`pcx login --profile ${name}\` or set PCX_BASE_URL, PCX_CLIENT_ID and PCX_CLIENT_SECRET (or PCX_PRIVATE_KEY_FILE)`);
    }
    const pcx = new PcxClient({
      baseUrl,
      clientId: profile.clientId,
      ...credentialsOf(profile),
      userAgent: `pcx/${SDK_VERSION}`,
      onRetry: (r) => out.progress(`retrying ${r.method} ${r.path} in ${r.delayMs} ms (${r.reason}, attempt ${r.attempt + 1})`),
    });
    if (globals().verify) pcx.onRead = verifyingReads(pcx, io.env);
    return pcx;
  };
  // Every action runs through this: errors become a message on stderr and an exit code.
  const run =
    <A extends unknown[]>(fn: (out: Output, ...args: A) => Promise<void>) =>
    async (...args: A) => {
      const out = output();
      try {
        await fn(out, ...args);
      } catch (err) {
        if (err instanceof UsageError) {
          out.message(`error: ${err.message}`);
          process.exitCode = EXIT.usage;
          return;
        }
        out.message(describeError(err));
        process.exitCode = exitCodeOf(err);
      }
    };
  return { io, globals, client, run };
}

/** The SDK's options for a profile's credentials: a private key, a certificate or a secret, and DPoP. */
function credentialsOf(profile: Partial<Profile>): Pick<PcxClientOptions, 'privateKey' | 'clientSecret' | 'certificate' | 'dpop'> {
  const dpop = profile.dpop ? { dpop: true } : {};
  if (profile.privateKeyFile) return { privateKey: readPrivateKey(profile.privateKeyFile), ...dpop };
  if (profile.certificateFile) {
    const read = (file: string, what: string) => {
      try {
        return readFileSync(file);
      } catch (err) {
        throw new UsageError(`cannot read the ${what} ${file}: ${(err as Error).message}`);
      }
    };
    if (!profile.certificateKeyFile) throw new UsageError('a certificate needs its key (--certificate-key)');
    return { certificate: { cert: read(profile.certificateFile, 'certificate'), key: read(profile.certificateKeyFile, 'certificate key'), ...(profile.caFile ? { ca: read(profile.caFile, 'CA file') } : {}) }, ...dpop };
  }
  return { clientSecret: profile.clientSecret, ...dpop };
}

/** A private JWK from its file (`pcx keys generate` writes one), or a usage error saying what is wrong with it. */
function readPrivateKey(file: string): PrivateJwk {
  let jwk: PrivateJwk;
  try {
    jwk = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read the private key ${file}: ${(err as Error).message}`);
  }
  if (!jwk || typeof jwk !== 'object' || typeof jwk.d !== 'string') throw new UsageError(`${file} is not a private JWK (no "d"): give the file \`pcx keys generate\` wrote`);
  return jwk;
}

/** pcx keys: a connector's key pair for private_key_jwt. */
function keyCommands(program: Command, cli: Cli): void {
  const { io, run } = cli;
  const keys = program.command('keys').description("a connector's key pair for private_key_jwt (no shared secret)");
  keys
    .command('generate')
    .description('make a P-256 key pair: the private JWK into FILE (mode 600, never overwritten), the public JWK printed, to register for the connector')
    .requiredOption('--out <file>', 'where the private key goes')
    .action(
      run(async (out, opts: { out: string }) => {
        const file = resolve(opts.out);
        if (existsSync(file)) throw new UsageError(`${file} exists: a private key is never overwritten; choose another file`);
        const { privateJwk, publicJwk } = generateConnectorKey();
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
        if (out.json) out.data({ privateKeyFile: file, publicJwk });
        else {
          out.message(`private key written to ${file} (keep it; the broker never sees it); the public key to register (publicJwk of POST /connectors, or in a connectors file's jwks):`);
          io.out.write(`${JSON.stringify(publicJwk, null, 2)}\n`);
        }
      }),
    );
  keys
    .command('public')
    .description('print the public JWK of a private key file (to register it again, or check it)')
    .argument('<file>', 'the private key file')
    .action(
      run(async (out, file: string) => {
        out.data(publicOf(readPrivateKey(resolve(file))));
      }),
    );
}

/** pcx login and pcx profiles. */
function loginCommands(program: Command, cli: Cli): void {
  const { io, globals, run } = cli;
  program
    .command('login')
    .description('store a profile: the broker URL and a connector\'s client credentials, checked against the broker')
    .requiredOption('--client-id <id>', 'the connector\'s client id')
    .option('--client-secret-stdin', 'read the client secret from stdin (else PCX_CLIENT_SECRET, else a prompt)')
    .option('--private-key <file>', "authenticate with the connector's private key instead of a secret (private_key_jwt; `pcx keys generate`): the profile names the file")
    .option('--certificate <file>', 'authenticate with a TLS client certificate (PEM; mutual TLS, RFC 8705) at the broker\'s mutual-TLS address (--base-url): the profile names the file')
    .option('--certificate-key <file>', "the certificate's private key (PEM)")
    .option('--ca <file>', "an extra CA (PEM) for the broker's server certificate")
    .option('--dpop', "bind every token to a key of the command's run (DPoP, RFC 9449): a stolen token is of no use")
    .option('--default', 'make this profile the default')
    .action(
      run(async (out, opts: { clientId: string; clientSecretStdin?: boolean; privateKey?: string; certificate?: string; certificateKey?: string; ca?: string; dpop?: boolean; default?: boolean }) => {
        const baseUrl = globals().baseUrl ?? io.env.PCX_BASE_URL;
        if (!baseUrl) throw new UsageError('--base-url (or PCX_BASE_URL) is required to log in');
        if ([opts.privateKey, opts.clientSecretStdin, opts.certificate].filter(Boolean).length > 1) throw new UsageError('--private-key, --certificate and --client-secret-stdin: one way to authenticate, not two');
        const keyFile = opts.privateKey ? resolve(opts.privateKey) : undefined;
        const certificate = opts.certificate ? { certificateFile: resolve(opts.certificate), ...(opts.certificateKey ? { certificateKeyFile: resolve(opts.certificateKey) } : {}), ...(opts.ca ? { caFile: resolve(opts.ca) } : {}) } : undefined;
        const secret = keyFile || certificate ? undefined : opts.clientSecretStdin ? (await readStdin()).trim() : io.env.PCX_CLIENT_SECRET ?? (await prompt(`client secret for ${opts.clientId}: `));
        if (!keyFile && !certificate && !secret) throw new UsageError('no client secret given');
        const name = globals().profile ?? io.env.PCX_PROFILE ?? 'default';
        const credentials: Partial<Profile> = { ...(keyFile ? { privateKeyFile: keyFile } : certificate ? certificate : { clientSecret: secret }), ...(opts.dpop ? { dpop: true } : {}) };
        // The credentials must work before they are kept.
        await new PcxClient({ baseUrl, clientId: opts.clientId, ...credentialsOf(credentials) }).request('GET', '/events', { query: { limit: 1 } });
        const file = readProfiles(io.env);
        file.profiles[name] = { baseUrl, clientId: opts.clientId, ...credentials };
        if (opts.default || !file.default) file.default = name;
        const path = writeProfiles(file, io.env);
        if (out.json) out.data({ profile: name, baseUrl, clientId: opts.clientId, file: path });
        else out.message(`logged in to ${baseUrl} as ${opts.clientId}: profile "${name}" in ${path}`);
      }),
    );

  program
    .command('profiles')
    .description('list the stored profiles (never their secrets)')
    .action(
      run(async (out) => {
        const file = readProfiles(io.env);
        out.table(
          Object.entries(file.profiles).map(([name, p]) => ({ name, default: name === file.default ? '*' : '', baseUrl: p.baseUrl, clientId: p.clientId })),
          ['name', 'default', 'baseUrl', 'clientId'],
        );
      }),
    );
}

/** One command per collection (RESOURCES), with a subcommand per operation of the document on it. */
function resourceCommands(program: Command, cli: Cli): void {
  const { client, run } = cli;
  for (const [alias, { collection, columns }] of Object.entries(RESOURCES)) {
    const resource = program.command(alias).description(`${collection}: reads and commands`);
    const ops = OPERATIONS.filter((o) => o.path === `/${collection}` || o.path.startsWith(`/${collection}/`));
    const listOp = ops.find((o) => o.method === 'GET' && o.path === `/${collection}`);
    if (listOp) {
      const list = resource
        .command('list')
        .description(`list ${collection} (${listOp.summary})`)
        .option('--all', 'every page, not only the first')
        .option('--limit <n>', 'page size');
      for (const q of listOp.query.filter((q) => q !== 'cursor' && q !== 'limit')) list.option(`--${q} <value>`, `query parameter ${q}${q === 'status' ? ' (comma-separated for several)' : ''}`);
      list.action(
        run(async (out, opts: Record<string, string | boolean>) => {
          const pcx = client(out);
          const query: Record<string, unknown> = {};
          for (const q of listOp.query) if (typeof opts[q] === 'string') query[q] = opts[q];
          let items: Record<string, unknown>[];
          if (opts.all) {
            items = [];
            for await (const item of pcx.resource(collection).list(query as never)) items.push(item as Record<string, unknown>);
          } else items = (await pcx.request<{ items: Record<string, unknown>[] }>('GET', `/${collection}`, { query })).data.items;
          out.table(items, columns);
        }),
      );
    }
    if (ops.some((o) => o.method === 'GET' && o.path === `/${collection}/{id}`)) {
      resource
        .command('get <id>')
        .description(`read one of ${collection}`)
        .action(run(async (out, id: string) => out.data(await client(out).resource(collection).get(id))));
    }
    if (ops.some((o) => o.method === 'POST' && o.path === `/${collection}`)) {
      bodyOptions(resource.command('create').description(`create one of ${collection} from a JSON body`)).action(
        run(async (out, opts: BodyOptions) => {
          const created = await client(out).resource(collection).create(readBody(opts, true) as never);
          out.data(created);
        }),
      );
    }
    for (const op of ops.filter((o) => o.path.startsWith(`/${collection}/{id}/`) || (o.method === 'PATCH' && o.path === `/${collection}/{id}`) || (o.method === 'DELETE' && o.path === `/${collection}/{id}`))) {
      const segment = op.path.split('/')[3];
      const name = op.method === 'PATCH' ? 'update' : op.method === 'DELETE' ? 'delete' : op.method === 'GET' ? `show-${segment}` : segment;
      if (op.path.split('/').length > 4 && op.method === 'POST') continue; // deliveries/{deliveryId}/redeliver: below
      const command = resource.command(`${name} <id>`).description(op.summary);
      if (op.ifMatch) command.option('--if-match <version>', 'the version you last read (default: read the resource now and use its version)');
      if (op.method !== 'GET' && op.method !== 'DELETE') bodyOptions(command);
      command.action(
        run(async (out, id: string, opts: BodyOptions & { ifMatch?: string }) => {
          const pcx = client(out);
          const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : readBody(opts, false);
          const send = async () => {
            const ifMatch = op.ifMatch ? await versionOf(pcx, collection, id, opts.ifMatch) : undefined;
            return pcx.request(op.method, op.path, { path: { id }, ...(body !== undefined ? { body } : {}), ...(ifMatch ? { ifMatch } : {}) });
          };
          // Without --if-match the command is meant for the resource as it is now: a version read a
          // moment before the broker's own last change reached the read model (a series' clock, matching)
          // is read again and the command sent once more. A version the user gave is never replaced.
          const answer = op.ifMatch && !opts.ifMatch ? await sentOnCurrent(send) : await send();
          if (answer.data !== undefined) out.data(answer.data);
          else out.message(`${op.method} ${op.path.replace('{id}', id)}: ${answer.response.status}`);
        }),
      );
    }
  }
}

/** Sugar for the decisions people make most, and a redelivery of a webhook delivery. */
function decisionCommands(program: Command, cli: Cli): void {
  const { client, run } = cli;
  // Sugar for the decisions people make most.
  program
    .commands.find((c) => c.name() === 'proposals')!
    .command('decide <id> <decision>')
    .description('accept or reject a match proposal (decision: accept | reject)')
    .option('--reason <text>', 'a reason, recorded with the decision')
    .option('--if-match <version>', 'the version you last read (default: read now)')
    .action(
      run(async (out, id: string, decision: string, opts: { reason?: string; ifMatch?: string }) => {
        if (decision !== 'accept' && decision !== 'reject') throw new UsageError(`decision must be accept or reject, not ${decision}`);
        const pcx = client(out);
        const ifMatch = await versionOf(pcx, 'match-proposals', id, opts.ifMatch);
        const answer = await pcx.request('POST', '/match-proposals/{id}/decisions', { path: { id }, body: { decision, ...(opts.reason ? { reason: opts.reason } : {}) }, ifMatch });
        out.data(answer.data);
      }),
    );

  const webhooks = program.commands.find((c) => c.name() === 'webhooks')!;
  webhooks
    .command('redeliver <id> <deliveryId>')
    .description('send one delivery of a subscription again')
    .action(run(async (out, id: string, deliveryId: string) => out.data((await client(out).request('POST', '/webhook-subscriptions/{id}/deliveries/{deliveryId}/redeliver', { path: { id, deliveryId } })).data)));
}

/** pcx events tail. */
function eventCommands(program: Command, cli: Cli): void {
  const { io, client, run } = cli;
  const events = program.command('events').description('the organization\'s event feed');
  events
    .command('tail')
    .description('print the feed\'s events (one JSON object per line with --json), from the start or a cursor')
    .option('--follow', 'keep waiting for new events (Ctrl-C to stop)')
    .option('--cursor <cursor>', 'start after this cursor')
    .option('--interval <ms>', 'polling interval while following', '1000')
    .action(
      run(async (out, opts: { follow?: boolean; cursor?: string; interval: string }) => {
        const pcx = client(out);
        const controller = new AbortController();
        const stop = () => controller.abort();
        process.once('SIGINT', stop);
        try {
          for await (const event of pcx.events({ ...(opts.cursor ? { cursor: opts.cursor } : {}), follow: Boolean(opts.follow), pollIntervalMs: Number(opts.interval), signal: controller.signal })) {
            if (out.json) io.out.write(`${JSON.stringify(event)}\n`);
            else io.out.write(`${event.time}  ${event.type.padEnd(44)}  ${event.subject}  v${event.resourceversion}\n`);
          }
        } catch (err) {
          if (!controller.signal.aborted) throw err;
        } finally {
          process.off('SIGINT', stop);
        }
      }),
    );
}

/** pcx wait proposal. */
function waitCommands(program: Command, cli: Cli): void {
  const { client, run } = cli;
  program
    .command('wait')
    .description('wait until something exists; progress on stderr')
    .command('proposal')
    .description('wait for a match proposal of a load request (or an offer) and print it')
    .option('--request <id>', 'the load request')
    .option('--offer <id>', 'the capacity offer')
    .option('--timeout <seconds>', 'give up after this long (exit 5)', '60')
    .action(
      run(async (out, opts: { request?: string; offer?: string; timeout: string }) => {
        if (!opts.request && !opts.offer) throw new UsageError('--request or --offer is required');
        const pcx = client(out);
        const query = { ...(opts.request ? { request: opts.request } : {}), ...(opts.offer ? { offer: opts.offer } : {}) };
        const deadline = Date.now() + Number(opts.timeout) * 1000;
        for (let polls = 1; ; polls++) {
          const page = (await pcx.request<{ items: unknown[] }>('GET', '/match-proposals', { query })).data;
          if (page.items.length) return out.data(page.items[0]);
          if (Date.now() > deadline) {
            out.message(`no proposal after ${opts.timeout} s`);
            process.exitCode = EXIT.notFound;
            return;
          }
          if (!out.json || polls % 5 === 1) out.progress(`waiting for a proposal (${Math.round((deadline - Date.now()) / 1000)} s left)`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }),
    );
}

/** pcx request: any operation by method and path. */
function requestCommand(program: Command, cli: Cli): void {
  const { client, run } = cli;
  bodyOptions(
    program
      .command('request <method> <path>')
      .description('any operation of the API by method and path template, e.g. pcx request POST /match-evaluations --data \'{...}\'')
      .option('--path-param <name=value...>', 'values of {name} in the path')
      .option('--query <name=value...>', 'query parameters')
      .option('--if-match <etag>', 'If-Match as given'),
  ).action(
    run(async (out, method: string, path: string, opts: BodyOptions & { pathParam?: string[]; query?: string[]; ifMatch?: string }) => {
      const pairs = (list: string[] = []) => Object.fromEntries(list.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
      const body = readBody(opts, false);
      const answer = await client(out).request(method.toUpperCase(), path, {
        path: pairs(opts.pathParam),
        query: pairs(opts.query),
        ...(body !== undefined ? { body } : {}),
        ...(opts.ifMatch ? { ifMatch: opts.ifMatch } : {}),
      });
      if (answer.data !== undefined) out.data(answer.data);
    }),
  );
}

class UsageError extends Error {}

interface BodyOptions {
  file?: string;
  data?: string;
}

function bodyOptions(command: Command): Command {
  return command.addOption(new Option('-f, --file <path>', 'JSON body from a file (- for stdin)').conflicts('data')).option('-d, --data <json>', 'JSON body inline');
}

function readBody(opts: BodyOptions, required: boolean): unknown {
  const text = opts.data ?? (opts.file ? readFileSync(opts.file === '-' ? 0 : opts.file, 'utf8') : undefined);
  if (text === undefined) {
    if (required) throw new UsageError('a JSON body is required: --file PATH, --file - (stdin) or --data JSON');
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`the body is not JSON: ${(err as Error).message}`);
  }
}

/** If-Match for a command: the version given, else the resource's version read now. */
/** A command on the version read just before, read and sent again on 409 STALE_RESOURCE_VERSION (three tries, a moment apart). */
async function sentOnCurrent<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (!(err instanceof StaleResourceVersionError) || attempt >= 3) throw err;
      await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
    }
  }
}

async function versionOf(pcx: PcxClient, collection: Collection, id: string, given?: string): Promise<string> {
  if (given) return /^(W\/)?"/.test(given) ? given : `"${given}"`;
  const current = (await pcx.request<{ resourceVersion: number }>('GET', `/${collection}/{id}`, { path: { id } })).data;
  return `"${current.resourceVersion}"`;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A prompt that does not echo what is typed (a secret). */
async function prompt(question: string): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError('no client secret: use --client-secret-stdin or PCX_CLIENT_SECRET when not on a terminal');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  process.stderr.write(question);
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => undefined;
  const answer = await new Promise<string>((resolve) => rl.question('', resolve));
  rl.close();
  process.stderr.write('\n');
  return answer;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT.usage;
    process.stderr.write(`${describeError(err)}\n`);
    return exitCodeOf(err);
  }
  return Number(process.exitCode ?? 0);
}

if (require.main === module) {
  // `pcx offers list | head`: the reader has closed the pipe; what it did not read is not wanted.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode === undefined ? 0 : Number(process.exitCode));
  });
  main().then((code) => {
    process.exitCode = code;
  });
}
