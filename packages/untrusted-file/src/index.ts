export { readUntrustedFile, type UntrustedFile, type UntrustedFileOptions } from './read-untrusted-file.js';
