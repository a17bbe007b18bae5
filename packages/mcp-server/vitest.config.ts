import { adapterVitestConfig } from '../../vitest.adapter.js';

export default adapterVitestConfig('@ksadk/mcp-server');
