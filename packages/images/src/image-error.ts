import { ConfigurationError, type ConfigurationErrorCode, SystemError } from '@delta/errors';

const HINTS: Record<string, string> = {
  IMAGE_NOT_FOUND:
    'Give an OCI image layout directory (DIR or DIR:TAG), an oci-archive or docker-archive tarball (skopeo copy, docker save), or a registry reference host[:port]/name:tag (on Docker Hub: docker.io/library/ubuntu:22.04, docker.io/swebench/NAME:TAG; docs/environments.md).',
  IMAGE_INVALID: 'Rebuild the image, or convert it (skopeo copy docker://... oci:DIR:TAG); see docs/environments.md.',
  IMAGE_DIGEST_MISMATCH: 'Fetch the image again; a source that serves other bytes under a digest is not to be trusted.',
  IMAGE_UNAVAILABLE:
    'Check that the registry runs and answers at that address, and the credentials; plain HTTP is used only for a loopback registry unless allowed.',
};

/** An image error with its code and the usual fix (the message names the image, the layer and the entry). */
export function imageError(
  code: Extract<ConfigurationErrorCode, `IMAGE_${string}`> | 'IMAGE_UNAVAILABLE',
  message: string,
  hint = HINTS[code],
): ConfigurationError | SystemError {
  if (code === 'IMAGE_UNAVAILABLE') return new SystemError(message, { code, ...(hint ? { hint } : {}) });
  return new ConfigurationError(message, { code, ...(hint ? { hint } : {}) });
}
