import { describe, expect, it } from 'vitest';
import { checkCommandPolicy, isMetadataHost } from './command-policy.js';

const rejected = (command: string) => checkCommandPolicy(command);

describe('checkCommandPolicy (a first screen, not the boundary)', () => {
  it('keeps the shapes of the Python KsADK', () => {
    expect(checkCommandPolicy('   ')).toEqual({
      ok: false,
      decision: 'reject',
      error_type: 'command_required',
      error_message: 'command is required',
    });
    expect(checkCommandPolicy('ls -la')).toEqual({
      ok: true,
      decision: 'allow',
      reason: 'default_allow',
    });
    expect(checkCommandPolicy('git status')).toEqual({
      ok: true,
      decision: 'allow',
      reason: 'read_only_git',
    });
    expect(checkCommandPolicy('echo "unbalanced')).toMatchObject({
      ok: false,
      error_type: 'invalid_command',
    });
    expect(checkCommandPolicy('sudo ls')).toMatchObject({
      ok: false,
      decision: 'reject',
      error_type: 'command_rejected',
      error_message: '`sudo` command is not allowed by default policy',
    });
  });

  it.each([
    'rm -rf build',
    'rm -r build',
    'rm -fR build',
    'rm --recursive build',
    'rm -v -f -r build',
    'sudo id',
    '/usr/bin/sudo id',
    'ls;sudo id',
    'ls && sudo id',
    'ls || kubectl get pods',
    'ls | docker run x',
    'true & sudo id',
    'sh -c "sudo id"',
    "bash -lc 'sudo id'",
    'eval sudo id',
    'echo $(sudo id)',
    'echo "$(sudo id)"',
    'echo `sudo id`',
    "'s'udo id",
    's"u"do id',
    'X=1 sudo id',
    'env -i PATH=/bin sudo id',
    'nohup timeout 5 sudo id',
    'xargs -n 1 sudo < list',
    'sh -c "sh -c \\"sudo id\\""',
    'git push origin main',
    'git -C . push',
    'git -c user.name=x --no-pager reset --hard',
    '/usr/bin/git clean -fdx',
    'git checkout -- .',
    'curl http://169.254.169.254/latest/meta-data/',
    'curl http://2852039166/',
    'curl http://0xa9fea9fe/',
    'curl http://0251.0376.0251.0376/',
    'curl http://169.254.43518/',
    'curl "http://[::ffff:169.254.169.254]/"',
    'curl http://[::ffff:a9fe:a9fe]/',
    'curl http://[fd00:ec2::254]/',
    'curl -H "Metadata-Flavor: Google" http://metadata.google.internal/computeMetadata/v1/',
    'curl metadata.google.internal.',
    'wget -qO- user@169.254.169.254:80/x',
    'curl http://100.100.100.200/latest/meta-data',
    'cat <(sudo id)',
  ])('rejects %s', (command) => {
    expect(rejected(command)).toMatchObject({ ok: false, decision: 'reject' });
  });

  it.each([
    'ls -la',
    'rm file.txt',
    'rm -f file.txt',
    'python3 -c "print(1)"',
    'git log --oneline -5',
    'git diff HEAD~1',
    'echo "rm -rf is dangerous"',
    'curl https://example.com/',
    'node -e "console.log(2)"',
    'grep -r needle .',
  ])('allows %s', (command) => {
    expect(checkCommandPolicy(command)).toMatchObject({ ok: true });
  });

  it('read_only_git only when git is the whole command', () => {
    expect(checkCommandPolicy('git status; ls')).toMatchObject({ reason: 'default_allow' });
    expect(checkCommandPolicy('git status && git push')).toMatchObject({ ok: false });
  });

  it('refuses huge, NUL and deeply nested commands without stalling', () => {
    const started = Date.now();
    expect(checkCommandPolicy('x'.repeat(70_000))).toMatchObject({ error_type: 'invalid_command' });
    expect(checkCommandPolicy('ls\0')).toMatchObject({ error_type: 'invalid_command' });
    let nested = 'id';
    for (let i = 0; i < 12; i += 1) nested = `sh -c ${JSON.stringify(nested)}`;
    expect(checkCommandPolicy(nested)).toMatchObject({ ok: false });
    expect(checkCommandPolicy(`${'a; '.repeat(1_000)}ls`)).toMatchObject({ ok: true });
    expect(checkCommandPolicy(`${'a; '.repeat(10_000)}ls`)).toMatchObject({
      error_type: 'invalid_command',
    });
    expect(checkCommandPolicy(`echo ${'$('.repeat(5_000)}`)).toBeDefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('isMetadataHost', () => {
  it.each([
    ['169.254.169.254', true],
    ['0xa9fea9fe', true],
    ['[::ffff:169.254.169.254]', true],
    ['METADATA.google.internal.', true],
    ['example.com', false],
    ['10.0.0.1', false],
    ['::1', false],
    ['', false],
  ])('%s → %s', (host, expected) => {
    expect(isMetadataHost(host)).toBe(expected);
  });
});

describe('found by an independent attack', () => {
  it.each([
    'echo a#b; sudo id',
    'true #\ngit push origin main',
    'true # c\nrm -rf /',
    'ls\nrm -rf build',
    'bash -O extglob -c "sudo id"',
    'busybox sh -c "sudo id"',
    'env -S "sudo id"',
    'runuser -u root id',
    'gosu root id',
    'git -c alias.p=push p',
    'git -c protocol.ext.allow=always fetch x',
    'curl http://[64:ff9b::a9fe:a9fe]/',
  ])('rejects %s', (command) => {
    expect(checkCommandPolicy(command)).toMatchObject({ ok: false });
  });

  it.each(['ls # a comment\nls -la', 'echo "#not a comment"', 'curl "https://example.com/#frag"'])(
    'still allows %s',
    (command) => {
      expect(checkCommandPolicy(command)).toMatchObject({ ok: true });
    },
  );

  it('stays cheap on 64 KiB of short words', () => {
    for (const command of [
      'echo ' + 'a '.repeat(30_000),
      'a;'.repeat(30_000),
      'a|'.repeat(30_000),
    ]) {
      // CPU time of this process, not wall clock: other test processes on a loaded CI machine
      // cannot make it fail, while a super-linear screen still would.
      const started = process.cpuUsage();
      checkCommandPolicy(command.slice(0, 64 * 1024 - 1));
      const used = process.cpuUsage(started);
      expect((used.user + used.system) / 1000).toBeLessThan(500);
    }
  });
});
