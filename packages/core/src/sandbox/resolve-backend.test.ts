import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KsadkError } from '../errors/ksadk-error.js';
import { createFakeE2BProvider } from '../testing/fake-e2b-provider.js';
import { createSandboxBackend } from './create-sandbox-backend.js';
import { parseSandboxBackendName, resolveSandboxBackend } from './resolve-backend.js';
import { SANDBOX_BACKEND_NAMES } from './sandbox-backend.js';
import { sandboxSettingsFromEnv } from './sandbox-settings.js';

const resolve = (purpose: 'skills' | 'sandbox', env: NodeJS.ProcessEnv, explicit?: string) =>
  resolveSandboxBackend({ purpose, env, ...(explicit === undefined ? {} : { explicit }) });

function configError(action: () => unknown): KsadkError {
  try {
    action();
  } catch (error) {
    if (KsadkError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a KsadkError');
}

describe('parseSandboxBackendName', () => {
  it('knows every name and alias, in any case and with spaces', () => {
    const table: Record<string, string> = {
      '': 'disabled',
      ' Disabled ': 'disabled',
      none: 'disabled',
      OFF: 'disabled',
      local: 'local_process',
      Local_Process: 'local_process',
      bubblewrap: 'bubblewrap',
      bwrap: 'bubblewrap',
      E2B: 'e2b',
    };
    for (const [value, name] of Object.entries(table)) {
      expect(parseSandboxBackendName(value, 'test')).toBe(name);
    }
  });

  it('refuses anything else, naming the source and listing the valid names', () => {
    for (const value of ['pod_process', 'docker', 'constructor', '__proto__', 'local process']) {
      const error = configError(() => parseSandboxBackendName(value, 'KSADK_SANDBOX_BACKEND'));
      expect(error.code).toBe('invalid_config');
      expect(error.message).toContain('KSADK_SANDBOX_BACKEND');
      for (const name of SANDBOX_BACKEND_NAMES) expect(error.message).toContain(name);
    }
  });
});

describe('resolveSandboxBackend — skills', () => {
  it('explicit wins over everything', () => {
    expect(
      resolve(
        'skills',
        { KSADK_SKILL_RUNTIME_BACKEND: 'e2b', KSADK_SANDBOX_BACKEND: 'e2b' },
        'bwrap',
      ),
    ).toEqual({ name: 'bubblewrap', source: 'explicit' });
    expect(resolve('skills', { KSADK_SANDBOX_TEMPLATE_ID: 't' }, '')).toEqual({
      name: 'disabled',
      source: 'explicit',
    });
  });

  it('KSADK_SKILL_RUNTIME_BACKEND counts when present, even empty (= disabled)', () => {
    const env = { KSADK_SANDBOX_BACKEND: 'local', KSADK_SANDBOX_TEMPLATE_ID: 't' };
    expect(resolve('skills', { ...env, KSADK_SKILL_RUNTIME_BACKEND: '' })).toEqual({
      name: 'disabled',
      source: 'KSADK_SKILL_RUNTIME_BACKEND',
    });
    expect(resolve('skills', { ...env, KSADK_SKILL_RUNTIME_BACKEND: 'bwrap' }).name).toBe(
      'bubblewrap',
    );
  });

  it('then KSADK_SANDBOX_BACKEND unless empty or a disabled alias', () => {
    expect(resolve('skills', { KSADK_SANDBOX_BACKEND: 'local' })).toEqual({
      name: 'local_process',
      source: 'KSADK_SANDBOX_BACKEND',
    });
    for (const off of ['', '  ', 'none', 'off', 'disabled']) {
      expect(
        resolve('skills', { KSADK_SANDBOX_BACKEND: off, KSADK_SANDBOX_TEMPLATE_ID: 't' }),
      ).toEqual({ name: 'e2b', source: 'KSADK_SANDBOX_TEMPLATE_ID' });
    }
  });

  it('then e2b when either template variable is set, else disabled', () => {
    expect(resolve('skills', { KSADK_SKILL_RUNTIME_TEMPLATE_ID: 't' })).toEqual({
      name: 'e2b',
      source: 'KSADK_SKILL_RUNTIME_TEMPLATE_ID',
    });
    expect(resolve('skills', { KSADK_SANDBOX_TEMPLATE_ID: ' ' })).toEqual({
      name: 'disabled',
      source: 'default',
    });
    expect(resolve('skills', {})).toEqual({ name: 'disabled', source: 'default' });
  });

  it('unknown values are configuration errors naming the variable', () => {
    expect(
      configError(() => resolve('skills', { KSADK_SKILL_RUNTIME_BACKEND: 'pod' })).message,
    ).toContain('KSADK_SKILL_RUNTIME_BACKEND');
    expect(
      configError(() => resolve('skills', { KSADK_SANDBOX_BACKEND: 'pod' })).message,
    ).toContain('KSADK_SANDBOX_BACKEND');
    expect(configError(() => resolve('skills', {}, 'nope')).message).toContain('explicit');
  });
});

describe('resolveSandboxBackend — sandbox', () => {
  it('explicit, then KSADK_SANDBOX_BACKEND (disabled aliases included), then a template, then disabled', () => {
    expect(resolve('sandbox', { KSADK_SANDBOX_BACKEND: 'e2b' }, 'local')).toEqual({
      name: 'local_process',
      source: 'explicit',
    });
    expect(
      resolve('sandbox', { KSADK_SANDBOX_BACKEND: 'off', KSADK_SANDBOX_TEMPLATE_ID: 't' }),
    ).toEqual({
      name: 'disabled',
      source: 'KSADK_SANDBOX_BACKEND',
    });
    expect(
      resolve('sandbox', { KSADK_SANDBOX_BACKEND: '', KSADK_SANDBOX_TEMPLATE_ID: 't' }),
    ).toEqual({
      name: 'e2b',
      source: 'KSADK_SANDBOX_TEMPLATE_ID',
    });
    // Deviation from Python (which executes e2b): nothing configured means disabled.
    expect(resolve('sandbox', {})).toEqual({ name: 'disabled', source: 'default' });
  });

  it('ignores KSADK_SKILL_RUNTIME_BACKEND', () => {
    expect(resolve('sandbox', { KSADK_SKILL_RUNTIME_BACKEND: 'local' }).name).toBe('disabled');
  });
});

describe('one resolver: what is reported is what runs', () => {
  const value = fc.constantFrom(
    undefined,
    '',
    ' ',
    'none',
    'off',
    'local',
    'local_process',
    'bwrap',
    'e2b',
    'E2B',
  );
  const envArb = fc
    .record({
      KSADK_SKILL_RUNTIME_BACKEND: value,
      KSADK_SANDBOX_BACKEND: value,
      KSADK_SANDBOX_TEMPLATE_ID: fc.constantFrom(undefined, '', 'tpl'),
      KSADK_SKILL_RUNTIME_TEMPLATE_ID: fc.constantFrom(undefined, 'tpl2'),
    })
    .map((record) =>
      Object.fromEntries(Object.entries(record).filter(([, entry]) => entry !== undefined)),
    );

  it('the backend built from the resolved name is the backend the resolver reported, for both purposes', () => {
    const e2bProvider = createFakeE2BProvider();
    fc.assert(
      fc.property(
        envArb,
        fc.constantFrom('skills', 'sandbox') as fc.Arbitrary<'skills' | 'sandbox'>,
        (env, purpose) => {
          const resolved = resolveSandboxBackend({ purpose, env });
          const hostEnv = { ...env, PATH: process.env['PATH'] };
          if (resolved.name === 'e2b' && !sandboxSettingsFromEnv(env).templateId) {
            // e2b chosen by name without a template: a setup error, never another backend.
            const error = configError(() =>
              createSandboxBackend(resolved.name, { env: hostEnv, e2bProvider }),
            );
            expect(error.code).toBe('setup');
            return;
          }
          const backend = createSandboxBackend(resolved.name, { env: hostEnv, e2bProvider });
          expect(backend.name).toBe(resolved.name);
          expect(backend.isolated).toBe(resolved.name === 'bubblewrap' || resolved.name === 'e2b');
          // Resolving again (a descriptor, component_status) gives the same answer.
          expect(resolveSandboxBackend({ purpose, env })).toEqual(resolved);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the skills purpose only differs from the sandbox purpose where the Python KsADK does', () => {
    fc.assert(
      fc.property(envArb, (env) => {
        const skills = resolve('skills', env);
        const sandbox = resolve('sandbox', env);
        if (skills.name !== sandbox.name) {
          const runtimeSet = env['KSADK_SKILL_RUNTIME_BACKEND'] !== undefined;
          const sandboxDisabledAlias = ['none', 'off'].includes(env['KSADK_SANDBOX_BACKEND'] ?? '');
          expect(runtimeSet || sandboxDisabledAlias).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('createSandboxBackend', () => {
  it('the disabled backend explains which variable to set', async () => {
    const backend = createSandboxBackend('disabled');
    expect(backend).toMatchObject({ name: 'disabled', isolated: false });
    await expect(backend.createSession({ sessionId: 'x' })).rejects.toMatchObject({
      code: 'setup',
      message: expect.stringMatching(/disabled.*KSADK_SANDBOX_BACKEND.*KSADK_SANDBOX_TEMPLATE_ID/),
    });
  });

  it('e2b reads its settings from env; without a template it is a setup error', async () => {
    const provider = createFakeE2BProvider();
    const backend = createSandboxBackend('e2b', {
      env: {
        KSADK_SKILL_RUNTIME_TEMPLATE_ID: 'tpl',
        KSADK_SANDBOX_TIMEOUT: '60',
        KSADK_SKILL_RUNTIME_ALLOW_INTERNET_ACCESS: 'yes',
      },
      e2bProvider: provider,
    });
    await (await backend.createSession({ sessionId: 's' })).kill();
    expect(provider.creates[0]).toMatchObject({
      template: 'tpl',
      options: { timeoutMs: 60_000, allowInternetAccess: true },
    });
    await provider.cleanup();
    expect(configError(() => createSandboxBackend('e2b', { env: {} })).code).toBe('setup');
    expect(configError(() => createSandboxBackend('docker')).code).toBe('invalid_config');
  });
});

describe('sandboxSettingsFromEnv', () => {
  it('defaults: no template, 900 s, internet off, 6 attempts, 200 ms', () => {
    expect(sandboxSettingsFromEnv({})).toEqual({
      templateId: undefined,
      lifetimeMs: 900_000,
      allowInternetAccess: false,
      startupRetryAttempts: 6,
      startupRetryDelayMs: 200,
    });
  });

  it('the KSADK_SANDBOX_* variables win over the KSADK_SKILL_RUNTIME_* ones; blank counts as unset', () => {
    expect(
      sandboxSettingsFromEnv({
        KSADK_SANDBOX_TEMPLATE_ID: 'a',
        KSADK_SKILL_RUNTIME_TEMPLATE_ID: 'b',
        KSADK_SANDBOX_TIMEOUT: '30',
        KSADK_SKILL_RUNTIME_TIMEOUT: '40',
        KSADK_SANDBOX_ALLOW_INTERNET_ACCESS: 'false',
        KSADK_SKILL_RUNTIME_ALLOW_INTERNET_ACCESS: 'true',
        KSADK_SANDBOX_STARTUP_RETRY_ATTEMPTS: '0',
        KSADK_SANDBOX_STARTUP_RETRY_DELAY: '0.05',
      }),
    ).toEqual({
      templateId: 'a',
      lifetimeMs: 30_000,
      allowInternetAccess: false,
      startupRetryAttempts: 1,
      startupRetryDelayMs: 50,
    });
    expect(
      sandboxSettingsFromEnv({
        KSADK_SANDBOX_TEMPLATE_ID: '',
        KSADK_SKILL_RUNTIME_TEMPLATE_ID: 'b',
        KSADK_SANDBOX_TIMEOUT: ' ',
        KSADK_SKILL_RUNTIME_TIMEOUT: '40',
        KSADK_SANDBOX_ALLOW_INTERNET_ACCESS: '',
        KSADK_SKILL_RUNTIME_ALLOW_INTERNET_ACCESS: 'On',
      }),
    ).toMatchObject({ templateId: 'b', lifetimeMs: 40_000, allowInternetAccess: true });
  });

  it('invalid numbers are configuration errors naming the variable', () => {
    const cases: Record<string, string> = {
      KSADK_SANDBOX_TIMEOUT: '1.5',
      KSADK_SKILL_RUNTIME_TIMEOUT: 'abc',
      KSADK_SANDBOX_STARTUP_RETRY_ATTEMPTS: 'six',
      KSADK_SANDBOX_STARTUP_RETRY_DELAY: '0x10',
    };
    for (const [name, value] of Object.entries(cases)) {
      const error = configError(() => sandboxSettingsFromEnv({ [name]: value }));
      expect(error.code).toBe('invalid_config');
      expect(error.message).toContain(name);
    }
    expect(configError(() => sandboxSettingsFromEnv({ KSADK_SANDBOX_TIMEOUT: '0' })).code).toBe(
      'invalid_config',
    );
  });
});
