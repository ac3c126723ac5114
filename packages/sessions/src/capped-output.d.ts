// Types for capped-output.js, for packages that typecheck this one's source without allowJs.
export declare class CappedOutput {
  constructor(limit: number);
  readonly limit: number;
  readonly totalBytes: number;
  push(chunk: Buffer): void;
  get retainedBytes(): number;
  get droppedBytes(): number;
  text(): string;
}
