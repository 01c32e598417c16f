#!/usr/bin/env node
// pcx-conformance: runs a profile of the specification against an implementation and writes the
// report (docs/conformance.md).
//   npx tsx conformance/src/cli.ts broker --base-url URL --clients FILE --report DIR
//     [--settings FILE] [--expected-failures FILE] [--only ID,ID] [--openapi PATH]
//   npx tsx conformance/src/cli.ts publisher|consumer|outcome-provider|full --base-url URL \
//     --clients FILE --connector CLIENT_ID [--counterpart CLIENT_ID] --report DIR [--seconds N] -- COMMAND...
// Exit code: 0 when no mandatory check is non-conformant (expected failures aside), 1 when one is,
// 2 when the run could not be made.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { runBrokerProfile } from './broker/run';
import { runConnectorProfile, type ConnectorProfile } from './connector/run';
import type { Credentials } from './traffic';
import { exitCodeOf, writeReport } from './report';

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

const program = new Command('pcx-conformance').description('Conformance kit of the Partner Capacity Exchange specification').exitOverride();
program
  .command('broker')
  .description('The Broker profile (authorization, matching, lifecycle, events) against a running implementation')
  .requiredOption('--base-url <url>', "the implementation's base URL")
  .requiredOption('--clients <file>', 'JSON: organizations (three connectors with every scope), operator (optional), tokenUrl (optional)')
  .requiredOption('--report <dir>', 'where report.json and report.md go')
  .option('--settings <file>', 'JSON: broker settings some checks need (proposalValiditySeconds)')
  .option('--expected-failures <file>', 'JSON: check id -> why it is a known deviation')
  .option('--only <ids>', 'comma-separated check ids')
  .option('--openapi <path>', "the document's path on the implementation")
  .action(async (opts) => {
    const report = await runBrokerProfile({
      baseUrl: opts.baseUrl,
      clients: readJson(opts.clients),
      ...(opts.settings ? { settings: readJson(opts.settings) } : {}),
      ...(opts.expectedFailures ? { expectedFailures: readJson(opts.expectedFailures) } : {}),
      ...(opts.only ? { only: String(opts.only).split(',') } : {}),
      ...(opts.openapi ? { openapiPath: opts.openapi } : {}),
      log: (line) => process.stderr.write(`${line}\n`),
    });
    const files = writeReport(report, opts.report);
    process.stderr.write(`report: ${files.markdown}, ${files.json}\n`);
    process.stdout.write(`${report.summary}\n`);
    process.exitCode = exitCodeOf(report);
  });

const CONNECTOR_PROFILES: Record<ConnectorProfile, string> = {
  publisher: 'The Publisher profile: the connector publishes the capacity the scenario gives it',
  consumer: 'The Consumer profile: the connector decides the proposal the kit, as its partner, accepted; its feed is served out of order and twice',
  'outcome-provider': 'The Outcome provider profile: the connector reports the execution of the match it made (milestones, an outcome, its correction)',
  full: 'The Full reference client profile: every connector role of the scenario, from publishing to the corrected outcome',
};

for (const [profile, description] of Object.entries(CONNECTOR_PROFILES) as Array<[ConnectorProfile, string]>) {
  program
    .command(profile)
    .description(`${description} (against a PCX sandbox in development mode; the scenario in PCX_SCENARIO)`)
    .requiredOption('--base-url <url>', "the sandbox's base URL")
    .requiredOption('--clients <file>', "JSON: organizations (the connector's and the counterpart's, with every scope), operator (the sandbox operator), tokenUrl (optional)")
    .requiredOption('--connector <clientId>', 'the client id the connector under test authenticates as (one of the organizations of the clients file)')
    .option('--counterpart <clientId>', 'the organization the kit plays (default: the first other one of the clients file)')
    .requiredOption('--report <dir>', 'where report.json and report.md go')
    .option('--seconds <n>', 'how long the connector may run (it is stopped sooner when the scenario is done)', '120')
    .argument('<command...>', 'the command that runs the connector (after --)')
    .action(async (command: string[], opts) => {
      const clients = readJson(opts.clients);
      if (!clients.operator) throw new Error('the clients file names no operator');
      const organizations = (clients.organizations ?? []) as Credentials[];
      const organization = organizations.find((o) => o.clientId === opts.connector);
      if (!organization) throw new Error(`the clients file has no organization whose clientId is ${opts.connector}`);
      const counterpart = organizations.find((o) => (opts.counterpart ? o.clientId === opts.counterpart : o.organizationId !== organization.organizationId));
      if (!counterpart) throw new Error('the clients file names no counterpart organization');
      const report = await runConnectorProfile(profile, {
        baseUrl: opts.baseUrl,
        operator: clients.operator,
        organization,
        counterpart,
        ...(clients.tokenUrl ? { tokenUrl: clients.tokenUrl } : {}),
        connectorClientId: opts.connector,
        command,
        seconds: Number(opts.seconds),
        log: (line) => process.stderr.write(`${line}\n`),
      });
      const files = writeReport(report, opts.report);
      process.stderr.write(`report: ${files.markdown}, ${files.json}\n`);
      process.stdout.write(`${report.summary}\n`);
      process.exitCode = exitCodeOf(report);
    });
}

program.parseAsync(process.argv).catch((err) => {
  if (err?.code === 'commander.helpDisplayed' || err?.code === 'commander.version') return;
  process.stderr.write(`pcx-conformance: ${err?.message ?? err}\n`);
  process.exitCode = 2;
});
