import type { BatchReport } from '@delta/experiments';
import { escapeHtml as esc } from './escape-html.js';
import { gradedBy } from './render-batch-figures.js';

const HEIGHT = 240;
const TOP = 24;
const BOTTOM = 40;
// Across, in per cent of the width the chart is given (its figure's): the score axis at the left, room
// for the last point's label at the right.
const LEFT = 7;
const RIGHT = 82;

/**
 * Mean cost per run against score, one point per model (models without a cost or a score are left out).
 * Drawn as wide as its place on the page: positions across are percentages of the chart's width, so the
 * text keeps its size whatever the width. Models at the same point have their names one under another.
 */
export function costScatter(report: BatchReport): string {
  const points = report.by_model.filter((group) => group.score !== null && group.cost !== null && group.runs > 0);
  if (points.length === 0) return '<p class="muted">Cost against score: no model has both (add llm.pricing, and a grader).</p>';
  const costs = points.map((group) => Number((group.cost! / group.runs).toFixed(10)));
  const maxCost = Math.max(...costs) || 1;
  const maxScore = Math.max(1, ...points.map((group) => group.score!.mean));
  const seen = new Map<string, number>();
  const dots = points.map((group, index) => {
    const x = LEFT + (costs[index]! / maxCost) * (RIGHT - LEFT);
    const y = HEIGHT - BOTTOM - (group.score!.mean / maxScore) * (HEIGHT - BOTTOM - TOP);
    const place = `${x.toFixed(1)},${y.toFixed(1)}`;
    const below = seen.get(place) ?? 0;
    seen.set(place, below + 1);
    return `<g class="point" data-model="${esc(group.name)}" data-cost-per-run="${costs[index]}" data-score="${group.score!.mean}"><circle cx="${x.toFixed(2)}%" cy="${y.toFixed(1)}" r="5" fill="var(--model)"></circle><text x="${x.toFixed(2)}%" dx="8" y="${(y + 4 + below * 14).toFixed(1)}">${esc(group.name)}</text></g>`;
  });
  const currency = points.find((group) => group.currency !== null)?.currency ?? '';
  const axes = [
    `<line x1="${LEFT}%" y1="${HEIGHT - BOTTOM}" x2="${RIGHT}%" y2="${HEIGHT - BOTTOM}" stroke="var(--line)"></line>`,
    `<line x1="${LEFT}%" y1="${TOP / 2}" x2="${LEFT}%" y2="${HEIGHT - BOTTOM}" stroke="var(--line)"></line>`,
    `<text x="${(LEFT + RIGHT) / 2}%" y="${HEIGHT - 12}" text-anchor="middle">cost per run (0 to ${esc(maxCost.toPrecision(3))} ${esc(currency)})</text>`,
    `<text x="0" y="${TOP / 2 - 2}">score (0 to ${maxScore})</text>`,
  ].join('');
  return `<figure class="chart" data-grader="${esc(report.grader?.hash ?? '')}"><figcaption>Cost against score per model, ${gradedBy(report)}</figcaption><svg id="cost-score" width="100%" height="${HEIGHT}" role="img" font-size="12">${axes}${dots.join('')}</svg></figure>`;
}
