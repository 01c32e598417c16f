// Builds the workflow bundle a worker can start from (WORKFLOW_BUNDLE_FILE) instead of bundling
// workflows/ itself: `npx tsx scripts/bundle-workflows.ts FILE`.
import { resolve } from 'node:path';
import { writeWorkflowBundle } from '../workflows/bundle';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: tsx scripts/bundle-workflows.ts FILE\n');
  process.exit(2);
}
writeWorkflowBundle(resolve(file)).then(
  () => process.stderr.write(`workflow bundle written to ${resolve(file)}\n`),
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
