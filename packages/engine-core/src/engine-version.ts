import packageJson from '../package.json' with { type: 'json' };

/** The version of @delta/engine that writes a run, recorded in ENGINE_START. */
export const ENGINE_VERSION: string = packageJson.version;
