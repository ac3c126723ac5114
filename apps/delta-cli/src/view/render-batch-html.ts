import type { BatchReport, BatchRunRow, GroupStatistics } from '@delta/experiments';
import { formatCount, formatDuration } from '../inspect/format-numbers.js';
import { BATCH_SCRIPT, BATCH_STYLE } from './batch-page-assets.js';
import { costScatter, failedRuns, heatmap, scoreBars, totals } from './render-batch-figures.js';
import { escapeHtml as esc } from './escape-html.js';
import { htmlPage } from './html-page.js';
import { PAGE_STYLE } from './page-assets.js';

/** A cell that sorts by `value` and shows `text`. */
function cell(key: string, value: string | number | null, text: string, number = false): string {
  return `<td data-key="${key}" data-value="${esc(value ?? '')}"${number ? ' class="number"' : ''}>${text}</td>`;
}

function runRow(row: BatchRunRow, index: number, link: string | undefined): string {
  const tokens = row.prompt_tokens + row.completion_tokens;
  const score = row.score === null ? (row.grade_error ? 'grader error' : '') : String(row.score);
  const search = `${row.task} ${row.model} ${row.status}`.toLowerCase();
  return `<tr id="run-${index}" data-status="${esc(row.status)}" data-task="${esc(row.task)}" data-model="${esc(row.model)}" data-search="${esc(search)}">${[
    cell('task', row.task, esc(row.task)),
    cell('model', row.model, esc(row.model)),
    cell('repeat', row.repeat, String(row.repeat), true),
    cell('status', row.status, `<span class="status-${esc(row.status)}">${esc(row.status)}</span>`),
    cell('score', row.score, esc(score), true),
    cell('iterations', row.iterations, formatCount(row.iterations), true),
    cell('tokens', tokens, formatCount(tokens), true),
    cell('cost', row.cost, row.cost === null ? '' : esc(row.cost.toFixed(4)), true),
    cell('duration', row.duration_ms, row.duration_ms === null ? '' : esc(formatDuration(row.duration_ms)), true),
    cell('run', row.run_id, link ? `<a href="${esc(link)}">${esc(row.run_id)}</a>` : esc(row.run_id ?? '')),
  ].join('')}</tr>`;
}

function modelSummary(group: GroupStatistics): string {
  const score =
    group.score === null
      ? 'no scores'
      : group.metric === 'pass_rate'
        ? `pass rate ${(group.score.mean * 100).toFixed(0)}% [${(group.score.low * 100).toFixed(0)}-${(group.score.high * 100).toFixed(0)}]`
        : `mean score ${group.score.mean.toFixed(2)} [${group.score.low.toFixed(2)}, ${group.score.high.toFixed(2)}]`;
  return `<div><dt>${esc(group.name)}</dt><dd>${group.completed}/${group.runs} completed · ${esc(score)}</dd></div>`;
}

const HEADERS: Array<[string, string, boolean]> = [
  ['task', 'task', false],
  ['model', 'model', false],
  ['repeat', 'k', true],
  ['status', 'status', false],
  ['score', 'score', true],
  ['iterations', 'iterations', true],
  ['tokens', 'tokens', true],
  ['cost', 'cost', true],
  ['duration', 'time', true],
  ['run', 'run', false],
];

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
<p class="muted">${definition.task_ids.length} tasks × ${definition.models.length} models × ${definition.repeat} repeats = ${report.runs.length} runs · agent ${esc(definition.agent)}${report.grader ? ` · grader <code>${esc(report.grader.hash)}</code> <code>${esc(report.grader.command)}</code>` : ''}</p>
<p id="totals">${totals(report)}</p>
<dl class="summary">${report.by_model.map(modelSummary).join('')}</dl>
</header>
<section id="figures" class="figures">
${heatmap(report)}
<div>${scoreBars(report.by_model)}${costScatter(report.by_model)}</div>
</section>
${failedRuns(report.runs, links)}
<header>
<div class="filters"><input id="filter" type="search" placeholder="filter task, model, status" aria-label="filter"><select id="status" aria-label="status"><option value="">every status</option>${statuses.map((status) => `<option>${esc(status)}</option>`).join('')}</select><span class="muted" id="shown"></span></div>
</header>
<main>
<table id="runs"><thead><tr>${HEADERS.map(([key, label, number]) => `<th data-key="${key}"${number ? ' class="number"' : ''}>${esc(label)}</th>`).join('')}</tr></thead>
<tbody>
${report.runs.map((row, index) => runRow(row, index, links.get(row))).join('\n')}
</tbody></table>
</main>`,
    script: BATCH_SCRIPT,
  });
}
