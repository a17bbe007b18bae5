import { adapterVitestConfig } from '../../vitest.adapter.js';

// The client table also runs the same calls through two of KsADK's adapters, from their source.
export default adapterVitestConfig('@ksadk/mcp-server', ['openai', 'anthropic']);
