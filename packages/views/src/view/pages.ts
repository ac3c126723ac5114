// The HTML pages of `delta view`, the largest part of this package: loaded on demand through loadPages().
export { collectRun } from './collect-run.js';
export { renderRunHtml } from './render-html.js';
export { writeBatchView } from './write-batch-view.js';
