import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface PublicPackage {
  name: string;
  version: string;
  directory: string;
}

/** Every package under packages/ and apps/ that is not private: what we would publish. */
export function publicPackages(): PublicPackage[] {
  const found: PublicPackage[] = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(REPOSITORY_ROOT, group), { withFileTypes: true })) {
      const manifestFile = join(REPOSITORY_ROOT, group, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifestFile)) continue;
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { name: string; version: string; private?: boolean };
      if (!manifest.private)
        found.push({ name: manifest.name, version: manifest.version, directory: join(REPOSITORY_ROOT, group, entry.name) });
    }
  }
  return found;
}
