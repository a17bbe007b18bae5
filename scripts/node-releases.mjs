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
export const NEWEST_PEERS = { openai: '7.59.0', ai: '7.0.173', '@openai/agents': '0.20.0' };
/** Installs (once) the pinned Node of this major; returns the folder holding its `node`. */
export function installNode(major) {
  const version = NODE_RELEASES[major];
  const bin = path.join(installPackages([`node@${version}`], `node-${version}`), 'node', 'bin');
  const reported = spawnSync(path.join(bin, 'node'), ['--version'], { encoding: 'utf8' });
  if (reported.stdout.trim() !== `v${version}`)
    throw new Error(`node@${version} reports ${reported.stdout.trim() || reported.stderr}`);
  return bin;
}

/**
 * Installs `specs` (`name@version`) from the npm registry into `~/.ksadk-ci-tools/<folder>`, once:
 * a folder that already holds every one at its version is reused. Engines are not enforced: these
 * run on the Node they are for (the newest Node, a server that declares a newer one), not on the
 * engines-floor Node whose npm installs them. Returns the folder's node_modules.
 */
export function installPackages(specs, folder) {
  const prefix = path.join(homedir(), '.ksadk-ci-tools', folder);
  const modules = path.join(prefix, 'node_modules');
  const ready = specs.every((spec) => {
    const at = spec.lastIndexOf('@');
    const manifest = path.join(modules, spec.slice(0, at), 'package.json');
    return (
      existsSync(manifest) &&
      JSON.parse(readFileSync(manifest, 'utf8')).version === spec.slice(at + 1)
    );
  });
  if (!ready) {
    rmSync(prefix, { recursive: true, force: true });
    mkdirSync(prefix, { recursive: true });
    writeFileSync(path.join(prefix, 'package.json'), '{"private":true}\n');
    const installed = spawnSync(
      'npm',
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

/** Installs (once) the newest peers into a folder of their own; returns its node_modules. */
export function installNewestPeers() {
  const specs = Object.entries(NEWEST_PEERS).map(([name, version]) => `${name}@${version}`);
  return installPackages(specs, `peers-${specs.join('_').replace(/[/@]/g, '-')}`);
}
