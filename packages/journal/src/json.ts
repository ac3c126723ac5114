import { SystemError } from '@delta/errors';

/** Every JSON parse in the control plane goes through here, so a bad file is always named. */
export function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SystemError(`${where} is not valid JSON: ${(error as Error).message}`, {
      code: 'JSON_INVALID',
      cause: error,
      file: where,
    });
  }
}
