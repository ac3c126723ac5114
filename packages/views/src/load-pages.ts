/** The HTML pages: `collectRun` and `renderRunHtml` for one run, `writeBatchView` for a batch and its runs. */
export type Pages = typeof import('./view/pages.js');

/**
 * Loads the HTML pages. They are most of this package's code and only `delta view` needs them: a program
 * bundling this package keeps them in a chunk of their own, loaded by this call alone.
 */
export function loadPages(): Promise<Pages> {
  return import('./view/pages.js');
}
