// `npm test` after setup (scripts/setup.mjs runs this on the project's Node): the type check, then
// every jest project in one process (--runInBand: Temporal's native runtime wants one jest worker).
// Arguments go to jest (`npm test -- --selectProjects unit`).
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (command, args, env = process.env) => spawnSync(command, args, { cwd: root, stdio: 'inherit', env }).status ?? 1;

const typecheck = run(bin('tsc'), ['--noEmit', '-p', '.']);
if (typecheck !== 0) process.exit(typecheck);
process.exit(run(bin('jest'), ['--runInBand', ...process.argv.slice(2)], { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') }));
