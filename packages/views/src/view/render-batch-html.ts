import type { BatchReport, BatchRunRow, GroupStatistics } from '@delta/experiments';
import { formatCount, formatDuration } from '../inspect/format-numbers.js';
import { BATCH_SCRIPT, BATCH_STYLE } from './batch-page-assets.js';
import { failedRuns, gradedBy, heatmap, judgeTotals, scoreBars, scoreWithInterval, totals } from './render-batch-figures.js';
import { costScatter } from './render-cost-scatter.js';
import { escapeHtml as esc } from './escape-html.js';
import { htmlPage } from './html-page.js';
import { PAGE_STYLE } from './page-assets.js';

/** A column of the runs' table: its key, heading, whether it holds numbers, and a run's value (it sorts by) and HTML. */
type Column = [string, string, boolean, (row: BatchRunRow, link: string | undefined) => [string | number | null, string]];

const GRADER_CHOICE = { asked: 'picked with --grader', batch: "the batch's own", latest: 'the latest to grade' } as const;

const tokens = (row: BatchRunRow) => row.prompt_tokens + row.completion_tokens;

const COLUMNS: readonly Column[] = [
  ['task', 'task', false, (row) => [row.task, esc(row.task)]],
  ['model', 'model', false, (row) => [row.model, esc(row.model)]],
  ['repeat', 'k', true, (row) => [row.repeat, String(row.repeat)]],
  ['status', 'status', false, (row) => [row.status, `<span class="status-${esc(row.status)}">${esc(row.status)}</span>`]],
  ['score', 'score', true, (row) => [row.score, esc(row.score === null ? (row.grade_error ? 'grader error' : '') : String(row.score))]],
  ['iterations', 'iterations', true, (row) => [row.iterations, formatCount(row.iterations)]],
  ['tokens', 'tokens', true, (row) => [tokens(row), formatCount(tokens(row))]],
  ['cost', 'cost', true, (row) => [row.cost, row.cost === null ? '' : esc(row.cost.toFixed(4))]],
  ['duration', 'time', true, (row) => [row.duration_ms, row.duration_ms === null ? '' : esc(formatDuration(row.duration_ms))]],
  ['run', 'run', false, (row, link) => [row.run_id, link ? `<a href="${esc(link)}">${esc(row.run_id)}</a>` : esc(row.run_id ?? '')]],
];

function runRow(row: BatchRunRow, index: number, link: string | undefined): string {
  const search = `${row.task} ${row.model} ${row.status}`.toLowerCase();
  const cells = COLUMNS.map(([key, , number, cell]) => {
    const [value, html] = cell(row, link);
    return `<td data-key="${key}" data-value="${esc(value ?? '')}"${number ? ' class="number"' : ''}>${html}</td>`;
  });
  return `<tr id="run-${index}" data-status="${esc(row.status)}" data-task="${esc(row.task)}" data-model="${esc(row.model)}" data-search="${esc(search)}">${cells.join('')}</tr>`;
}

/** ` · grader HASH COMMAND (why this one; the others)`, or nothing when no run is graded. */
function graderHeader({ grader, graders, grader_choice }: BatchReport): string {
  if (grader === null) return '';
  const others = graders.filter((other) => other.hash !== grader.hash).map((other) => `<code>${esc(other.hash)}</code>`);
  const pick = others.length > 0 ? `; others: ${others.join(', ')}, pick one with delta view OUT --grader HASH` : '';
  return ` · grader <code>${esc(grader.hash)}</code> <code>${esc(grader.command)}</code> (${esc(GRADER_CHOICE[grader_choice ?? 'latest'])}${pick})`;
}

function modelSummary(group: GroupStatistics): string {
  const rate = group.metric === 'pass_rate';
  const score = group.score === null ? 'no scores' : `${rate ? 'pass rate' : 'mean score'} ${scoreWithInterval(group.score, rate)}`;
  return `<div><dt>${esc(group.name)}</dt><dd>${group.completed}/${group.runs} completed · ${esc(score)}</dd></div>`;
}

/**
 * One self-contained page for a batch: per-model figures, the model x task heatmap, score bars with their
 * intervals, cost against score, the FAILED runs' reasons, and a sortable, filterable table of its runs,
 * each linking (`links`, relative to the page) to its own run page.
 */
export function renderBatchHtml(report: BatchReport, links: ReadonlyMap<BatchRunRow, string>): string {
  const statuses = [...new Set(report.runs.map((row) => row.status))].sort();
  const { definition } = report;
  return htmlPage({
    title: `delta view: batch ${report.out}`,
    style: `${PAGE_STYLE}${BATCH_STYLE}`,
    body: `<header>
<h1>Batch <code>${esc(report.out)}</code></h1>
<p class="muted">${definition.task_ids.length} tasks × ${definition.models.length} models × ${definition.repeat} repeats = ${report.runs.length} runs · agent ${esc(definition.agent)}${graderHeader(report)}</p>
<p id="totals">${totals(report)}</p>
${judgeTotals(report)}
<dl class="summary" data-grader="${esc(report.grader?.hash ?? '')}"><div><dt>scores</dt><dd>${gradedBy(report)}</dd></div>${report.by_model.map(modelSummary).join('')}</dl>
</header>
<section id="figures" class="figures">
<div class="matrix-box">${heatmap(report)}</div>
<div class="charts">${scoreBars(report)}${costScatter(report)}</div>
</section>
${failedRuns(report.runs, links)}
<header>
<div class="filters"><input id="filter" type="search" placeholder="filter task, model, status" aria-label="filter"><select id="status" aria-label="status"><option value="">every status</option>${statuses.map((status) => `<option>${esc(status)}</option>`).join('')}</select><span class="muted" id="shown"></span></div>
</header>
<main>
<table id="runs"><thead><tr>${COLUMNS.map(([key, label, number]) => `<th data-key="${key}"${number ? ' class="number"' : ''}>${esc(label)}</th>`).join('')}</tr></thead>
<tbody>
${report.runs.map((row, index) => runRow(row, index, links.get(row))).join('\n')}
</tbody></table>
</main>`,
    script: BATCH_SCRIPT,
  });
}
