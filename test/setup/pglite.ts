// Global setup of the pglite jest project (see stack-setup.ts).
import { setUpStack } from './stack-setup';

export default () => setUpStack('pglite');
