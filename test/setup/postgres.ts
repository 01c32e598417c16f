// Global setup of the postgres jest project (see stack-setup.ts).
import { setUpStack } from './stack-setup';

export default () => setUpStack('postgres');
