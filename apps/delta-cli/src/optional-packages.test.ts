import { readFileSync } from 'node:fs';
import { DeltaError, exitCodeOf, formatError } from '@delta/errors';
import { describe, expect, it } from 'vitest';
import { installSpec, loadOptional, OPENTELEMETRY, type OptionalCapability, SCALE_OUT } from './optional-packages.js';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

// A name no registry holds, imported through a variable so that nothing resolves it before the test runs.
const ABSENT = 'delta-test-absent-package';
const absent: OptionalCapability = { name: 'the test packages', packages: [ABSENT, 'yaml'], docs: 'docs/nowhere.md' };
const importByName = (name: string) => import(/* @vite-ignore */ name);

describe('the optional packages of the CLI', () => {
  it('are exactly its optional peer dependencies, none of them a dependency, all of them installed for its tests', () => {
    const optional = [...SCALE_OUT.packages, ...OPENTELEMETRY.packages].sort();
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(optional);
    for (const name of optional) {
      expect(manifest.peerDependenciesMeta[name], name).toEqual({ optional: true });
      expect(manifest.dependencies?.[name], name).toBeUndefined();
      expect(manifest.devDependencies[name], name).toBe(manifest.peerDependencies[name]);
    }
  });

  it('turns a missing package into exit 2 and the npm install that adds it, with the declared version', async () => {
    const error = await loadOptional('delta frobnicate', absent, () => importByName(ABSENT)).catch((caught: unknown) => caught);
    expect(DeltaError.isInstance(error) && error.code).toBe('OPTIONAL_PACKAGE_MISSING');
    expect(exitCodeOf(error)).toBe(2);
    // yaml is installed, so only the absent one is named.
    expect(formatError(error)).toBe(
      `delta frobnicate needs the test packages, which are not installed: npm install ${ABSENT}\n` +
        'Hint: Install them where @delta/cli is installed (add -g if you installed delta with -g); see docs/nowhere.md.',
    );
  });

  it('installs the versions the CLI declares as its peers', () => {
    expect(SCALE_OUT.packages.map(installSpec).join(' ')).toBe('bullmq@6.7.0 ioredis@6.0.0');
    for (const name of OPENTELEMETRY.packages) expect(installSpec(name)).toBe(`${name}@${manifest.peerDependencies[name]}`);
  });

  it('says another way out when there is one', async () => {
    const error = await loadOptional('X is set: sending', absent, () => importByName(ABSENT), { otherwise: 'unset X' }).catch(
      (caught: unknown) => caught,
    );
    expect((error as DeltaError).hint).toBe(
      'Install them where @delta/cli is installed (add -g if you installed delta with -g), or unset X; see docs/nowhere.md.',
    );
  });

  it('throws any other failure as it is: a load that fails, or a missing package that is not one of the capability', async () => {
    const broken = new Error('the module threw while loading');
    await expect(loadOptional('delta frobnicate', absent, () => Promise.reject(broken))).rejects.toBe(broken);
    const other = await loadOptional('delta frobnicate', { ...absent, packages: ['yaml'] }, () => importByName(ABSENT)).catch(
      (caught: unknown) => caught,
    );
    expect(DeltaError.isInstance(other)).toBe(false);
    expect((other as { code?: string }).code).toBe('ERR_MODULE_NOT_FOUND');
  });

  it('loads and returns the module when everything is installed', async () => {
    const loaded = await loadOptional('delta batch --queue', SCALE_OUT, () => import('@delta/queue'));
    expect(typeof loaded.parseRedisAddress).toBe('function');
  });
});
