import { defineConfig } from 'tsup';
import base from '../../tsup.base.js';

export default defineConfig({
  ...(base as object),
  // One entry per public subpath: each loads only what it needs; shared code goes to chunks.
  entry: {
    index: 'src/index.ts',
    workspace: 'src/workspace/index.ts',
    catalog: 'src/catalog/index.ts',
    mcp: 'src/mcp/index.ts',
    a2a: 'src/a2a/index.ts',
    memory: 'src/memory/index.ts',
    schema: 'src/schema/index.ts',
    adapter: 'src/adapter/index.ts',
    skills: 'src/skills/index.ts',
    sandbox: 'src/sandbox/index.ts',
    web: 'src/web/index.ts',
    'testing/index': 'src/testing/index.ts',
  },
});
