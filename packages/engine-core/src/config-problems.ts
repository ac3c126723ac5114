import { type ConfigurationError, ConfigurationErrors, DeltaError } from '@delta/errors';

/**
 * Collects the configuration errors of one load instead of stopping at the first: each step runs through
 * `attempt`, and `throwIfAny` throws the one error, or all of them together.
 */
export class ConfigProblems {
  readonly errors: ConfigurationError[] = [];

  attempt<T>(step: () => T): T | undefined {
    try {
      return step();
    } catch (error) {
      if (!DeltaError.isInstance(error) || error.kind !== 'configuration') throw error;
      // By shape, not instanceof: two installed copies of @delta/errors must agree.
      const found = Array.isArray((error as Partial<ConfigurationErrors>).errors)
        ? (error as ConfigurationErrors).errors
        : [error as ConfigurationError];
      this.errors.push(...found);
      return undefined;
    }
  }

  throwIfAny(subject: string): void {
    if (this.errors.length === 1) throw this.errors[0];
    if (this.errors.length > 1) throw new ConfigurationErrors(subject, this.errors);
  }
}
