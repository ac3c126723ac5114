import type { BatchReport, BatchRunRow, GroupStatistics, MatrixCell } from '@delta/experiments';
import { formatCount } from '../inspect/format-numbers.js';
import { escapeHtml as esc } from './escape-html.js';

// The batch page's figures, drawn as plain HTML and inline SVG: nothing is fetched.

/** Red (0) through amber to green (1); grey without a value. */
function heat(value: number | null, top: number): string {
  if (value === null) return 'background: var(--panel)';
  const share = top > 0 ? Math.max(0, Math.min(1, value / top)) : 0;
  return `background: hsl(${Math.round(share * 120)}, 65%, 80%)`;
}

function cellLabel(cell: MatrixCell): string {
  if (cell.value === null) return '-';
  return cell.passes !== null ? `${cell.passes}/${cell.scored}` : cell.value.toFixed(2);
}

/** The model x task matrix as a heatmap; each cell links to its runs in the table below (`#task=T&model=M`). */
export function heatmap(report: BatchReport): string {
  const { matrix } = report;
  if (matrix.metric === null) return '<p class="muted">No run is scored yet: no matrix.</p>';
  const top = matrix.metric === 'pass_rate' ? 1 : Math.max(1, ...matrix.cells.map((cell) => cell.value ?? 0));
  const rows = matrix.tasks.map((task) => {
    const cells = matrix.models.map((model) => {
      const cell = matrix.cells.find((candidate) => candidate.task === task && candidate.model === model)!;
      const link = `#task=${encodeURIComponent(task)}&model=${encodeURIComponent(model)}`;
      return `<td class="heat" style="${heat(cell.value, top)}" data-value="${esc(cell.value ?? '')}"><a href="${esc(link)}" title="${esc(`${task} / ${model}: ${cell.scored} of ${cell.runs} runs scored`)}">${esc(cellLabel(cell))}</a></td>`;
    });
    return `<tr><th scope="row">${esc(task)}</th>${cells.join('')}</tr>`;
  });
  const what = matrix.metric === 'pass_rate' ? 'passed / scored runs' : 'mean score';
  return `<table id="matrix" class="matrix" data-grader="${esc(report.grader?.hash ?? '')}"><caption>${esc(what)} per task and model, ${gradedBy(report)} (a FAILED run counts as 0)</caption><thead><tr><th>task</th>${matrix.models.map((model) => `<th>${esc(model)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** A pass rate `67% [35-88]`, or a mean score `0.72 [0.51, 0.93]`, with its 95% interval. */
export function scoreWithInterval({ mean, low, high }: { mean: number; low: number; high: number }, rate: boolean): string {
  return rate
    ? `${(mean * 100).toFixed(0)}% [${(low * 100).toFixed(0)}-${(high * 100).toFixed(0)}]`
    : `${mean.toFixed(2)} [${low.toFixed(2)}, ${high.toFixed(2)}]`;
}

const WIDTH = 420;
const ROW = 26;
const LEFT = 150;

/** `grader <code>3fa2c1d09e12</code>`: the grader a figure's scores come from, its command on hover. */
export function gradedBy(report: BatchReport): string {
  const { grader } = report;
  return grader === null ? 'no grader' : `grader <code title="${esc(grader.command)}">${esc(grader.hash)}</code>`;
}

/** Pass rate or mean score per model as bars, each with its 95% interval as a whisker. */
export function scoreBars(report: BatchReport): string {
  const groups = report.by_model;
  const scored = groups.filter((group) => group.score !== null);
  if (scored.length === 0) return '';
  const rate = scored.every((group) => group.metric === 'pass_rate');
  const top = rate ? 1 : Math.max(1, ...scored.map((group) => group.score!.high));
  const x = (value: number) => LEFT + (Math.max(0, value) / top) * (WIDTH - LEFT - 60);
  const bars = scored.map((group, index) => {
    const { mean, low, high } = group.score!;
    const y = 8 + index * ROW;
    const label = scoreWithInterval(group.score!, rate);
    return `<g class="bar" data-model="${esc(group.name)}" data-mean="${mean}" data-low="${low}" data-high="${high}"><text x="${LEFT - 6}" y="${y + 13}" text-anchor="end">${esc(group.name)}</text><rect x="${LEFT}" y="${y + 2}" width="${(x(mean) - LEFT).toFixed(1)}" height="${ROW - 10}" fill="var(--tool)" opacity="0.7"></rect><line x1="${x(low).toFixed(1)}" x2="${x(high).toFixed(1)}" y1="${y + 10}" y2="${y + 10}" stroke="var(--fg)" stroke-width="1.5"></line><text x="${(x(high) + 4).toFixed(1)}" y="${y + 13}">${esc(label)}</text></g>`;
  });
  const height = 16 + scored.length * ROW;
  return `<figure data-grader="${esc(report.grader?.hash ?? '')}"><figcaption>${rate ? 'Pass rate' : 'Mean score'} per model, with its 95% interval, ${gradedBy(report)}</figcaption><svg id="score-bars" width="${WIDTH + 80}" height="${height}" role="img" font-size="12">${bars.join('')}</svg></figure>`;
}

/** Each FAILED run with what it died of, linking to its page. */
export function failedRuns(rows: readonly BatchRunRow[], links: ReadonlyMap<BatchRunRow, string>): string {
  const failed = rows.filter((row) => row.status === 'FAILED');
  if (failed.length === 0) return '';
  const items = failed.map((row) => {
    const link = links.get(row);
    const name = esc(`${row.task} / ${row.model} / ${row.repeat}`);
    return `<li>${link ? `<a href="${esc(link)}">${name}</a>` : name}: <span class="reason">${esc(row.reason ?? 'no reason recorded')}</span></li>`;
  });
  return `<section id="failed"><h2>Failed runs (${failed.length})</h2><ul>${items.join('')}</ul></section>`;
}

/** Tokens and cost over the whole batch, for the summary line. */
export function totals(report: BatchReport): string {
  const sum = (pick: (group: GroupStatistics) => number) => report.by_model.reduce((total, group) => total + pick(group), 0);
  const costs = report.by_model.filter((group) => group.cost !== null);
  const cost =
    costs.length === 0
      ? 'no cost (no llm.pricing)'
      : `cost ${Number(costs.reduce((total, group) => total + group.cost!, 0).toFixed(6))} ${costs[0]!.currency ?? ''}`.trim();
  return `tokens ${formatCount(sum((group) => group.prompt_tokens))} in (${formatCount(sum((group) => group.cached_tokens))} cached) · ${formatCount(sum((group) => group.completion_tokens))} out · ${esc(cost)}`;
}

/** Each model judge's tokens and cost, apart from the agent's (which `totals` sums): a line each, or nothing. */
export function judgeTotals(report: BatchReport): string {
  const lines = report.graders.flatMap(({ hash, command, usage }) => {
    if (usage === undefined) return [];
    const cost = usage.cost === null ? 'no cost (no pricing)' : `cost ${Number(usage.cost.toFixed(6))} ${usage.currency ?? ''}`.trim();
    return [
      `<p class="judge" data-grader="${esc(hash)}">judge <code title="${esc(command)}">${esc(hash)}</code> ${esc(command)}, apart from the runs: tokens ${formatCount(usage.input_tokens)} in · ${formatCount(usage.output_tokens)} out · ${esc(cost)} (${usage.runs} runs judged)</p>`,
    ];
  });
  return lines.join('\n');
}
