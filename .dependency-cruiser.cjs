// Import-graph rules for packages/*/src. Run: `pnpm graph`;
// print the graph as text: `pnpm graph:text`.
//
// Adapters resolve `@ksadk/core` and its subpaths to core's source through the `paths` in
// tsconfig.depcruise.json (as vitest.adapter.ts does), so the check does not need a build.
const { readFileSync } = require('node:fs');
const path = require('node:path');

const readJson = (file) => JSON.parse(readFileSync(path.join(__dirname, file), 'utf8'));

// Core's public entry points are the subpaths of its `exports` map; the `@ksadk/source`
// condition of each names its source file (tsconfig.base.json resolves with that condition).
const coreExports = readJson('packages/core/package.json').exports;
const coreEntries = Object.entries(coreExports)
  .filter(([, target]) => typeof target === 'object' && target['@ksadk/source'])
  .map(([subpath, target]) => ({
    specifier: subpath.replace(/^\./, '@ksadk/core'),
    source: `packages/core/${target['@ksadk/source'].replace(/^\.\//, '')}`,
  }));
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const coreEntryFiles = coreEntries.map(({ source }) => `^${escapeRegExp(source)}$`);

const FRAMEWORKS = ['@langchain/[^/]+', 'langchain', '@google/adk', '@google/genai', 'openai'];
const framework = FRAMEWORKS.join('|');
const TEST_FILE = '\\.test(-d)?\\.[cm]?[jt]sx?$';
const TEST_FIXTURES = '(^|/)test-fixtures/';
// Every package but core: the adapters, the store packages, the MCP server and the console.
const ADAPTER_SRC = '^packages/(?!core/)[^/]+/src/';
const CAPABILITIES = '^packages/core/src/(workspace|skills|sandbox|web|memory|mcp|a2a|catalog)/';
// Which capability may import which other (besides the layers); the catalogue assembles them all.
const CAPABILITY_IMPORTS = {
  workspace: [],
  web: [],
  memory: [],
  a2a: [],
  sandbox: ['workspace'],
  skills: ['sandbox', 'workspace'],
  mcp: ['sandbox'],
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Modules form a cycle (type-only imports included). Break it: move the shared part ' +
        'into its own module that both sides import.',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    {
      name: 'core-imports-no-framework',
      severity: 'error',
      comment:
        'packages/core is framework-neutral: no LangChain/LangGraph, Google ADK, ' +
        'Google GenAI or OpenAI SDK imports. Framework code belongs in an adapter. (Core tests ' +
        'may use a framework as an oracle — the schema corpus checks our OpenAI and LangChain ' +
        'forms against theirs — through devDependencies, never shipped.)',
      from: { path: '^packages/core/src/', pathNot: [TEST_FILE] },
      to: {
        path: [
          // resolved into node_modules (pnpm: node_modules/.pnpm/<id>/node_modules/<name>/...)
          `(^|/)node_modules/(${framework})/`,
          // not resolvable from core: the bare specifier
          `^(${framework})(/|$)`,
        ],
      },
    },
    {
      name: 'adapters-use-core-public-entries',
      severity: 'error',
      comment:
        'Adapters reach core only through its package name and the subpaths in its `exports` (' +
        `${coreEntries.map((entry) => entry.specifier).join(', ')}) — ` +
        'never @ksadk/core/src/..., never a relative path into ../core.',
      from: { path: ADAPTER_SRC },
      to: {
        path: [
          // anything inside core that is not an entry point (src internals, dist, ...)
          '^packages/core/',
          // a specifier under @ksadk/core that does not resolve (not in `exports`)
          '^@ksadk/core(/|$)',
        ],
        pathNot: coreEntryFiles,
      },
    },
    {
      name: 'adapters-import-core-by-name',
      severity: 'error',
      comment: "Core reached by a relative path: import it by name ('@ksadk/core' or a subpath).",
      from: { path: ADAPTER_SRC },
      // `@ksadk/core` resolves through the package's exports (a workspace package); a relative
      // path into ../core does not go through them.
      to: { path: '^packages/core/', dependencyTypes: ['local'] },
    },
    {
      name: 'layers-import-no-capability',
      severity: 'error',
      comment:
        'The layers (tool, gateway, budget, errors, context, schema, util) sit below every ' +
        'capability: they import nothing from packages/core/src/{workspace,skills,sandbox,web,' +
        'memory,mcp,a2a,catalog}. Something both need belongs in a layer. (Cross-cutting ' +
        'security tests of the gateway may drive capabilities.)',
      from: {
        path: '^packages/core/src/(tool|gateway|budget|errors|context|schema|util)/',
        pathNot: [TEST_FILE, TEST_FIXTURES],
      },
      to: { path: CAPABILITIES },
    },
    ...Object.entries(CAPABILITY_IMPORTS).map(([capability, allowed]) => ({
      name: `capability-imports-${capability}`,
      severity: 'error',
      comment:
        `packages/core/src/${capability} may import the layers and ` +
        (allowed.length > 0
          ? `these capabilities only: ${allowed.join(', ')}`
          : 'no other capability') +
        ' (the map of core in CONTRIBUTING.md). Something two capabilities share belongs in a layer.',
      from: { path: `^packages/core/src/${capability}/`, pathNot: [TEST_FILE, TEST_FIXTURES] },
      to: {
        path: CAPABILITIES,
        pathNot: [capability, ...allowed].map((name) => `^packages/core/src/${name}/`),
      },
    })),
    {
      name: 'src-not-to-tests',
      severity: 'error',
      comment:
        'Shipped code imports no test file (*.test.ts, *.test-d.ts) and nothing from a ' +
        'test-fixtures folder.',
      from: { path: '^packages/[^/]+/src/', pathNot: [TEST_FILE, TEST_FIXTURES] },
      to: { path: [TEST_FILE, TEST_FIXTURES] },
    },
  ],
  options: {
    doNotFollow: { path: '(^|/)node_modules/' },
    // Type-only imports are dependencies too (they count for cycles and boundaries).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      // `@ksadk/source` first: workspace packages resolve to their source, no build needed.
      conditionNames: ['@ksadk/source', 'types', 'import', 'node', 'default'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
