// Runs one command as a child of `npm start` that cannot outlive it: `node child-guard.mjs CMD
// ARGS...`, spawned by scripts/start.ts with an IPC channel. The command runs in this guard's
// process group; a SIGTERM or SIGINT to the guard is passed on to it; and when the channel to
// npm start closes (npm start gone, killed or crashed, without stopping its children), the guard
// stops the command (SIGTERM, then SIGKILL after 10 s) and exits. For children that are no Node
// process of ours (the Temporal dev server); the broker and the gateway watch the channel
// themselves. Plain Node, no dependencies.
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: 'inherit' });
const stop = (signal) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
};
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => stop(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM'));
process.on('disconnect', () => {
  process.stderr.write(`[guard] npm start is gone: stopping ${command.split('/').pop()}\n`);
  stop('SIGTERM');
  setTimeout(() => stop('SIGKILL'), 10_000).unref();
});
child.on('error', (err) => {
  process.stderr.write(`[guard] ${command}: ${err.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
