// Global setup of the postgres jest project (see stack-setup.ts).
import { setUpStack, type JestConfigs } from './stack-setup';

export default (globalConfig: JestConfigs['globalConfig'], projectConfig: JestConfigs['projectConfig']) => setUpStack('postgres', { globalConfig, projectConfig });
