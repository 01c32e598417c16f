// The example programs' command lines (examples/command-line.ts): --help answers with the usage,
// a wrong option is a usage error with exit 2, and neither prints a stack trace.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const run = (file: string, args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', 'carrier', file), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });

describe.each(['shipper.ts', 'connector.ts'])('examples/carrier/%s', (file) => {
  it('--help prints the usage and exits 0', () => {
    const help = run(file, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain(`Usage: npx tsx examples/carrier/${file}`);
    expect(help.stdout).toContain('--base-url URL');
    expect(help.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unknown option is a usage error (exit 2), without a stack trace', () => {
    const wrong = run(file, ['--bogus']);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("Unknown option '--bogus'");
    expect(wrong.stderr).toContain('Usage:');
    expect(wrong.stderr).not.toMatch(/\n\s+at /);
  });
});
