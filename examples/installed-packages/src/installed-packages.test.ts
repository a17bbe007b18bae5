import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const examples = [
  'openai-function-calling',
  'langgraph-agent',
  'adk-agent',
  'ai-sdk-chat',
  'anthropic-tool-loop',
  'openai-agents-run-state',
];
const tools = { tsx: '4.23.15', typescript: '5.9.3' };
/**
 * What a user installs next to our packages. `pinned`: the frameworks as the examples and the
 * tests use them. `lowest`: the lowest version of every peer range we declare — and, through
 * `overrides`, of every dependency range of core — so the ranges are proven at both ends.
 */
const versionSets = {
  pinned: {
    dependencies: {
      '@ai-sdk/openai': '3.0.141',
      '@anthropic-ai/sdk': '1.16.0',
      '@openai/agents': '0.14.3',
      ai: '6.0.325',
      '@google/adk': '2.0.0',
      '@google/genai': '2.32.0',
      '@modelcontextprotocol/sdk': '1.32.2',
      '@langchain/core': '1.4.0',
      '@langchain/langgraph': '1.7.3',
      '@langchain/openai': '1.5.8',
      langchain: '1.5.14',
      openai: '6.49.0',
      zod: '4.6.7',
      ...tools,
    },
    overrides: {},
  },
  lowest: {
    dependencies: {
      '@ai-sdk/openai': '3.0.141',
      '@anthropic-ai/sdk': '0.137.0',
      '@openai/agents': '0.14.0',
      ai: '6.0.0',
      '@google/adk': '2.0.0',
      '@google/genai': '2.9.0',
      '@modelcontextprotocol/sdk': '1.32.2',
      '@langchain/core': '1.4.0',
      '@langchain/langgraph': '1.7.3',
      '@langchain/openai': '1.5.8',
      langchain: '1.5.0',
      openai: '6.49.0',
      zod: '4.0.0',
      ...tools,
    },
    overrides: {
      '@modelcontextprotocol/sdk': '1.32.2',
      '@cfworker/json-schema': '4.1.6',
      acorn: '8.19.0',
      diff: '9.0.0',
      'proper-lockfile': '4.1.2',
      re2js: '2.10.0',
      zod: '4.0.0',
    },
  },
};

describe.each(Object.entries(versionSets))(
  'the packed packages with the %s versions, installed with npm in a fresh directory',
  (_set, versions) => {
    let work: string;
    let app: string;
    beforeAll(() => {
      work = mkdtempSync(path.join(tmpdir(), 'ksadk-installed-'));
      const packs = path.join(work, 'packs');
      app = path.join(work, 'app');
      mkdirSync(packs);
      mkdirSync(app);
      for (const name of [
        'core',
        'langgraph',
        'adk',
        'openai',
        'ai-sdk',
        'anthropic',
        'openai-agents',
        // The OpenAI example serves the console with --console.
        'console',
      ]) {
        execFileSync('pnpm', ['pack', '--pack-destination', packs], {
          cwd: path.join(repo, 'packages', name),
          stdio: 'pipe',
        });
      }
      const tarballs = Object.fromEntries(
        readdirSync(packs).map((file) => [
          `@ksadk/${file.replace(/^ksadk-/, '').replace(/-\d+\.\d+\.\d+.*\.tgz$/, '')}`,
          `file:${path.join(packs, file)}`,
        ]),
      );
      writeFileSync(
        path.join(app, 'package.json'),
        JSON.stringify(
          {
            name: 'user-app',
            private: true,
            type: 'module',
            dependencies: { ...tarballs, ...versions.dependencies },
            overrides: versions.overrides,
          },
          null,
          2,
        ),
      );
      writeFileSync(path.join(app, '.npmrc'), 'engine-strict=true\n');
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: app,
        stdio: 'pipe',
        timeout: 480_000,
      });
      for (const example of examples) {
        const target = path.join(app, example);
        mkdirSync(target);
        for (const file of readdirSync(path.join(repo, 'examples', example, 'src'))) {
          if (!file.endsWith('.test.ts'))
            cpSync(path.join(repo, 'examples', example, 'src', file), path.join(target, file));
        }
      }
      writeFileSync(
        path.join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: true,
            noEmit: true,
            types: [],
          },
          include: examples.map((example) => `${example}/*.ts`),
        }),
      );
    });
    afterAll(() => {
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('install with the frameworks and resolve to one copy of @ksadk/core', () => {
      const installed = readdirSync(path.join(app, 'node_modules', '@ksadk')).sort();
      expect(installed).toEqual([
        'adk',
        'ai-sdk',
        'anthropic',
        'console',
        'core',
        'langgraph',
        'openai',
        'openai-agents',
      ]);
      for (const adapter of [
        'adk',
        'ai-sdk',
        'anthropic',
        'langgraph',
        'openai',
        'openai-agents',
        // The OpenAI example serves the console with --console.
        'console',
      ]) {
        expect(() =>
          readdirSync(path.join(app, 'node_modules', '@ksadk', adapter, 'node_modules', '@ksadk')),
        ).toThrow();
      }
    });

    it("type-check the examples' code against the published types", () => {
      const result = spawnSync(
        path.join(app, 'node_modules', '.bin', 'tsc'),
        ['-p', 'tsconfig.json'],
        { cwd: app, encoding: 'utf8' },
      );
      expect(result.stdout + result.stderr).toBe('');
      expect(result.status).toBe(0);
    });

    for (const example of examples) {
      it(`run ${example}`, () => {
        const env = { ...process.env };
        for (const key of [
          'OPENAI_API_KEY',
          'GEMINI_API_KEY',
          'GOOGLE_GENAI_API_KEY',
          'ANTHROPIC_API_KEY',
        ])
          delete env[key];
        const result = spawnSync(
          path.join(app, 'node_modules', '.bin', 'tsx'),
          [path.join(example, 'main.ts')],
          {
            cwd: app,
            env,
            encoding: 'utf8',
            timeout: 120_000,
          },
        );
        expect(result.stderr).not.toMatch(/Error/);
        expect(result.status).toBe(0);
        expect(result.stdout).toContain('example check passed');
      });
    }
  },
);
