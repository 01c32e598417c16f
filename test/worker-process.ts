// A broker process in the worker role (PCX_ROLE=worker), as the worker container runs it: it
// serves no API, only /health/live and /health/ready on WORKER_HEALTH_PORT. test/stack.ts's
// startBroker waits on the API's port, which this role never opens, hence this helper.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, ROOT } from './stack';

export interface WorkerProcess {
  healthUrl: string;
  /** The API port the process was given (PORT): nothing may listen there. */
  apiPort: number;
  process: ChildProcess;
  log(): string;
  /** SIGTERM; resolves with the exit code (SIGKILL after 15 s). */
  stop(): Promise<number | null>;
}

export async function startWorkerProcess(env: Record<string, string>, dataDir: string, readyTimeoutMs = 60000): Promise<WorkerProcess> {
  const [healthPort, apiPort] = [await freePort(), await freePort()];
  mkdirSync(dataDir, { recursive: true });
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'broker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PCX_ROLE: 'worker',
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      WORKER_HEALTH_PORT: String(healthPort),
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    if (output.length < 400) output.push(chunk.toString());
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const healthUrl = `http://127.0.0.1:${healthPort}`;
  const handle: WorkerProcess = {
    healthUrl,
    apiPort,
    process: child,
    log: () => output.join(''),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15000).unref();
      }
      const code = await exited;
      if (code !== 0) process.stderr.write(`worker process exited with ${code}:\n${output.join("").slice(-3000)}\n`);
      return code;
    },
  };
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`worker process exited with ${child.exitCode}\n${handle.log().slice(-3000)}`);
    const ok = await fetch(`${healthUrl}/health/ready`).then((r) => r.status === 200, () => false);
    if (ok) return handle;
    if (Date.now() > deadline) {
      await handle.stop();
      throw new Error(`worker process not ready in ${readyTimeoutMs} ms\n${handle.log().slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
