// A jest reporter for where the suite's time goes (docs/benchmarks.md, "The suite's time"): for
// each test file, its wall time and the machine's busy CPU-seconds over it (from /proc/stat, so
// run one jest process alone on an otherwise quiet machine to read it as the file's cost). Rows
// go to SUITE_CPU_REPORT (default suite-cpu.txt in the working directory) as the files finish:
//   PCX_TEST_FILES=second NODE_OPTIONS=--experimental-vm-modules npx jest --runInBand \
//     --selectProjects postgres --reporters default --reporters ./bench/suite-cpu-reporter.cjs
const { appendFileSync, readFileSync } = require('node:fs');
const { basename } = require('node:path');

/** The machine's busy CPU-seconds since boot (every state but idle and iowait). */
function busySeconds() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return (total - fields[3] - fields[4]) / 100;
}

class SuiteCpuReporter {
  constructor() {
    this.started = new Map();
    this.file = process.env.SUITE_CPU_REPORT || 'suite-cpu.txt';
  }

  onTestFileStart(test) {
    this.started.set(test.path, { busy: busySeconds(), at: Date.now() });
  }

  onTestFileResult(test) {
    const start = this.started.get(test.path);
    if (!start) return;
    const project = test.context.config.displayName?.name ?? '';
    const wall = (Date.now() - start.at) / 1000;
    appendFileSync(this.file, `${basename(test.path)}\t${project}\t${wall.toFixed(0)} s\t${(busySeconds() - start.busy).toFixed(0)} CPU-s\n`);
  }
}

module.exports = SuiteCpuReporter;
