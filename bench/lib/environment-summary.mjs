// The tables bench/environments.mjs ends with: every figure's median, min–max and the load at each
// measurement, then the comparisons the issue asks for (issue 43), with its targets where it gives one.
import { median } from './stats.mjs';
import { formatTable } from './table.mjs';

/** `measured`: `${figure}\t${variant}` -> [{ value, unit, load }]. */
export function printSummary({ measured, runs, only, load }) {
  const m = (figure, variant) => median((measured.get(`${figure}\t${variant}`) ?? []).map((entry) => entry.value));
  const rows = [];
  for (const [key, entries] of measured) {
    const [figure, variant] = key.split('\t');
    const values = entries.map((entry) => entry.value);
    const unit = entries[0].unit;
    const n = (value) => value.toFixed(unit === 'ms' || unit === 'MiB' ? 1 : 2);
    rows.push([
      figure,
      variant,
      `${n(median(values))} ${unit}`,
      `${n(Math.min(...values))}–${n(Math.max(...values))}`,
      entries.map((entry) => entry.load.toFixed(1)).join(' '),
    ]);
  }
  console.log(`\nmedians; load average at the end: ${load}`);
  console.log(formatTable(['figure', 'variant', 'median', 'min–max', 'load (1 min) per measurement'], rows));

  const verdict = (ok) => (ok ? 'meets' : 'misses');
  const comparisons = [];
  const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
  if (only.has('2')) {
    const wall = m('2 wall', 'image') / m('2 wall', 'plain');
    comparisons.push([`2: ${runs} at once, wall, image / no image`, `${wall.toFixed(2)}x`, '<= 1.5', verdict(wall <= 1.5)]);
    const memory = m('2 memory', 'image') / m('2 memory', 'plain');
    comparisons.push([`2: ${runs} at once, tree memory, image / no image`, `${memory.toFixed(2)}x`, '<= 1.2', verdict(memory <= 1.2)]);
    const added = m('2 disk/run', 'image') - m('2 disk/run', 'plain');
    comparisons.push([
      '2: disk added per run by the image (OUT), written 1.05 MB',
      `${added.toFixed(2)} MB`,
      '<= 2.05 MB',
      verdict(added <= 2.05),
    ]);
    comparisons.push([
      "2: a run's layer (median)",
      `${m('2 layer/run', 'image').toFixed(2)} MB`,
      '<= 2.05 MB',
      verdict(m('2 layer/run', 'image') <= 2.05),
    ]);
  }
  if (only.has('3')) {
    const first = m('3 to 1st tool result', 'image') - m('3 to 1st tool result', 'plain');
    comparisons.push(['3: to the 1st tool result, image - no image', `${first.toFixed(1)} ms`, '<= 50 ms', verdict(first <= 50)]);
    const request = m('3 to 1st request', 'image') - m('3 to 1st request', 'plain');
    comparisons.push(['3: to the 1st model request, image - no image', `${request.toFixed(1)} ms`, '', '']);
  }
  if (only.has('4')) {
    comparisons.push(['4: 16 runs, time, cp -a alone / our batch', ratio(m('4 at 16 wall', 'cp -a'), m('4 at 16 wall', 'image')), '', '']);
    comparisons.push([
      '4: 16 runs, disk per run, cp -a / ours',
      ratio(m('4 at 16 disk/run', 'cp -a'), m('4 at 16 disk/run', 'image')),
      '',
      '',
    ]);
    if (only.has('2')) {
      comparisons.push([
        `4: ${runs} runs, time, cp -a alone / our batch`,
        ratio(m(`4 at ${runs} wall`, 'cp -a'), m('2 wall', 'image')),
        '',
        '',
      ]);
      comparisons.push([
        `4: ${runs} runs, disk per run, cp -a / ours`,
        ratio(m(`4 at ${runs} disk/run`, 'cp -a'), m('2 disk/run', 'image')),
        '',
        '',
      ]);
    }
  }
  if (only.has('5')) {
    const peak = m('5 peak RSS', '+1 GiB') - m('5 peak RSS', '100 MB');
    comparisons.push(['5: first unpack, peak RSS, +1 GiB - 100 MB', `${peak.toFixed(1)} MiB`, '', '']);
    const late = m('5 RSS 2nd half', '+1 GiB') / m('5 RSS 1st half', '+1 GiB');
    comparisons.push([
      '5: +1 GiB, highest RSS, 2nd half / 1st half of the unpack',
      `${late.toFixed(2)}x`,
      '<= 1.05',
      verdict(late <= 1.05),
    ]);
    comparisons.push(['5: first unpack, time, +1 GiB / 100 MB', ratio(m('5 unpack', '+1 GiB'), m('5 unpack', '100 MB')), '', '']);
  }
  console.log(`\n${formatTable(['comparison', 'measured', 'target', ''], comparisons)}`);
}
