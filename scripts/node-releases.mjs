// The Node releases and the newest framework releases CI proves, and how CI gets them: shared by
// scripts/test-node-versions.mjs and scripts/verify-release.mjs. Keep in step with
// docs/releasing.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** The Node releases CI proves, by major. Keep in step with docs/releasing.md. */
export const NODE_RELEASES = { 22: '22.23.3', 24: '24.21.0' };
/**
 * The newest release of each peer range where it is newer than the pinned devDependency (at the
 * time of writing every other peer's newest release is the pinned one: @langchain/core 1.4.0,
 * @langchain/langgraph 1.7.3, langchain 1.5.14, @google/adk 2.0.0, @google/genai 2.32.0). With
 * `--newest`, the adapters' tests run once more against these, on the last Node given.
 */
export const NEWEST_PEERS = { openai: '7.59.0' };
/** Installs (once) the pinned Node of this major; returns the folder holding its `node`. */
export function installNode(major) {
  const version = NODE_RELEASES[major];
  const prefix = path.join(homedir(), '.ksadk-ci-tools', `node-${version}`);
  const bin = path.join(prefix, 'node_modules', 'node', 'bin');
  if (!existsSync(path.join(bin, 'node'))) {
    rmSync(prefix, { recursive: true, force: true });
    mkdirSync(prefix, { recursive: true });
    const installed = spawnSync(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `node@${version}`,
      ],
      { stdio: 'inherit' },
    );
    if (installed.status !== 0) throw new Error(`npm could not install node@${version}`);
  }
  const reported = spawnSync(path.join(bin, 'node'), ['--version'], { encoding: 'utf8' });
  if (reported.stdout.trim() !== `v${version}`)
    throw new Error(`node@${version} reports ${reported.stdout.trim() || reported.stderr}`);
  return bin;
}

/** Installs (once) the newest peers into a folder of their own; returns its node_modules. */
export function installNewestPeers() {
  const specs = Object.entries(NEWEST_PEERS).map(([name, version]) => `${name}@${version}`);
  const prefix = path.join(
    homedir(),
    '.ksadk-ci-tools',
    `peers-${specs.join('_').replace(/[/@]/g, '-')}`,
  );
  const modules = path.join(prefix, 'node_modules');
  const ready = Object.entries(NEWEST_PEERS).every(([name, version]) => {
    const manifest = path.join(modules, name, 'package.json');
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === version;
  });
  if (!ready) {
    rmSync(prefix, { recursive: true, force: true });
    mkdirSync(prefix, { recursive: true });
    writeFileSync(path.join(prefix, 'package.json'), '{"private":true}\n');
    const installed = spawnSync(
      'npm',
      // Installed by this (engines-floor) Node for the newest Node, which runs them: the
      // repository's engine-strict would refuse a peer whose engines exclude this one (openai 7).
      [
        'install',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        '--engine-strict=false',
        ...specs,
      ],
      { stdio: 'inherit' },
    );
    if (installed.status !== 0) throw new Error(`npm could not install ${specs.join(' ')}`);
  }
  return modules;
}
