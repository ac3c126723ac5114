import { ConfigurationError } from '@delta/errors';
import packageJson from '../package.json' with { type: 'json' };

/**
 * A capability whose third-party packages a plain `npm install @delta/cli` leaves out: they are optional
 * peer dependencies of the CLI, imported only by the commands that use them.
 */
export interface OptionalCapability {
  /** For the message: "the scale-out packages". */
  name: string;
  packages: readonly string[];
  /** Where the user reads more. */
  docs: string;
}

/** BullMQ and its Redis client: `delta batch --queue` and `delta worker`. */
export const SCALE_OUT: OptionalCapability = { name: 'the scale-out packages', packages: ['bullmq', 'ioredis'], docs: 'docs/scale-out.md' };

const peerVersions: Record<string, string | undefined> = packageJson.peerDependencies;

/** The OpenTelemetry SDK (the CLI's @opentelemetry peers): `delta export otel`, and runs with OTEL_EXPORTER_OTLP_ENDPOINT set. */
export const OPENTELEMETRY: OptionalCapability = {
  name: 'the OpenTelemetry packages',
  packages: Object.keys(peerVersions).filter((name) => name.startsWith('@opentelemetry/')),
  docs: 'docs/tracing.md',
};

/** `bullmq@6.7.0`: the version the CLI declares as its peer, so the command installs what was tested. */
export function installSpec(name: string): string {
  const version = peerVersions[name];
  return version === undefined ? name : `${name}@${version}`;
}

/** The package is absent (not: present but failing to load, or missing one of its own dependencies). */
async function isMissing(name: string): Promise<boolean> {
  try {
    await import(name);
    return false;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return code === 'ERR_MODULE_NOT_FOUND' && String(message).includes(`'${name}'`);
  }
}

/**
 * Runs `load` (a dynamic import of the code that needs the capability). When that fails because some of
 * the capability's packages are not installed, the error (exit 2) names them with the command that
 * installs them (and `otherwise`, another way out); any other failure is thrown as it is.
 */
export async function loadOptional<T>(
  command: string,
  capability: OptionalCapability,
  load: () => Promise<T>,
  options: { otherwise?: string } = {},
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    const missing: string[] = [];
    for (const name of capability.packages) if (await isMissing(name)) missing.push(name);
    if (missing.length === 0) throw error;
    throw new ConfigurationError(
      `${command} needs ${capability.name}, which are not installed: npm install ${missing.map(installSpec).join(' ')}`,
      {
        code: 'OPTIONAL_PACKAGE_MISSING',
        hint: `Install them where @delta/cli is installed (add -g if you installed delta with -g)${options.otherwise === undefined ? '' : `, or ${options.otherwise}`}; see ${capability.docs}.`,
        cause: error,
      },
    );
  }
}
