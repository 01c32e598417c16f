// The command line of the example programs: node:util's parseArgs, with --help (the usage on
// stdout, exit 0) and a wrong option said as a usage error (the message and the usage on stderr,
// exit 2), never a stack trace.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export function commandLine<O extends Options>(usage: string, options: O, argv: string[] = process.argv.slice(2)) {
  try {
    const { values } = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true });
    if ((values as { help?: boolean }).help) {
      process.stdout.write(`${usage.trim()}\n`);
      process.exit(0);
    }
    return values as ReturnType<typeof parseArgs<{ options: O }>>['values'];
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${usage.trim()}\n`);
    process.exit(2);
  }
}
