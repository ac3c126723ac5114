/** The batch page's own style and script (it adds to the run page's style). */
export const BATCH_STYLE = `
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { cursor: pointer; user-select: none; background: var(--panel); position: sticky; top: 0; }
th[aria-sort="ascending"]::after { content: " ▲"; } th[aria-sort="descending"]::after { content: " ▼"; }
td.number, th.number { text-align: right; }
tr:hover td { background: var(--panel); }
.filters { display: flex; gap: 8px; align-items: center; margin: 8px 0; }
input, select { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 6px; }
/* The figures and the failed runs sit in the page's centred column, as the header and the table do. */
.figures, #failed { max-width: 1100px; margin: 12px auto; padding: 0 24px; }
.figures { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.matrix-box { flex: 0 1 auto; max-width: 100%; overflow-x: auto; }
.charts { flex: 1 1 420px; min-width: 0; }
.charts svg { max-width: 100%; }
figure.chart, figure.chart svg { display: block; width: 100%; }
table.matrix { width: auto; }
table.matrix caption { text-align: left; color: var(--muted); padding-bottom: 4px; }
td.heat { text-align: center; min-width: 56px; }
td.heat a { color: var(--fg); text-decoration: none; display: block; }
figure { margin: 0 0 12px; } figcaption { color: var(--muted); font-size: 13px; }
svg text { fill: var(--fg); }
#failed .reason { color: var(--bad); white-space: pre-wrap; }
`;

/**
 * Sorting (click a header; again to reverse) and filtering (text over task, model and status; a status
 * menu). The address's hash sets both at load and when it changes, `#q=task-1&status=FAILED&sort=-score`,
 * so a link can show a chosen view; `#task=T&model=M` (a heatmap cell's link) shows one cell's runs.
 */
export const BATCH_SCRIPT = `
(function () {
  var body = document.querySelector('#runs tbody');
  var rows = Array.prototype.slice.call(body.rows);
  var query = document.getElementById('filter');
  var status = document.getElementById('status');
  var headers = document.querySelectorAll('#runs th');
  var sortKey = null, descending = false;
  // A heatmap cell's link (#task=T&model=M) shows that cell's runs alone.
  var cellTask = null, cellModel = null;
  function value(row, key) {
    var cell = row.querySelector('td[data-key="' + key + '"]');
    var raw = cell ? cell.getAttribute('data-value') : '';
    var number = parseFloat(raw);
    return raw !== '' && !isNaN(number) && String(number) === raw ? number : raw;
  }
  function apply() {
    var text = query.value.toLowerCase(), wanted = status.value, shown = 0;
    if (sortKey) {
      rows.sort(function (a, b) {
        var x = value(a, sortKey), y = value(b, sortKey);
        if (x === y) return 0;
        if (x === '') return 1; if (y === '') return -1;
        return (x < y ? -1 : 1) * (descending ? -1 : 1);
      });
      rows.forEach(function (row) { body.appendChild(row); });
    }
    headers.forEach(function (th) {
      if (th.getAttribute('data-key') === sortKey) th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
      else th.removeAttribute('aria-sort');
    });
    rows.forEach(function (row) {
      var visible = row.getAttribute('data-search').indexOf(text) >= 0 && (wanted === '' || row.getAttribute('data-status') === wanted) &&
        (cellTask === null || (row.getAttribute('data-task') === cellTask && row.getAttribute('data-model') === cellModel));
      row.hidden = !visible;
      if (visible) shown += 1;
    });
    document.body.setAttribute('data-visible-runs', String(shown));
    document.body.setAttribute('data-order', rows.filter(function (row) { return !row.hidden; }).map(function (row) { return row.id; }).join(' '));
    document.getElementById('shown').textContent = shown + ' of ' + rows.length + ' runs shown';
  }
  headers.forEach(function (th) {
    th.addEventListener('click', function () {
      var key = th.getAttribute('data-key');
      descending = sortKey === key ? !descending : false;
      sortKey = key;
      apply();
    });
  });
  query.addEventListener('input', apply);
  status.addEventListener('change', apply);
  function fromHash() {
    var hash = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (part) {
      var pair = part.split('=');
      if (pair[0]) hash[decodeURIComponent(pair[0])] = decodeURIComponent(pair[1] || '');
    });
    if (hash.q) query.value = hash.q;
    if (hash.status) status.value = hash.status;
    if (hash.sort) { descending = hash.sort.charAt(0) === '-'; sortKey = hash.sort.replace(/^-/, ''); }
    cellTask = hash.task !== undefined && hash.model !== undefined ? hash.task : null;
    cellModel = cellTask === null ? null : hash.model;
  }
  fromHash();
  window.addEventListener('hashchange', function () { fromHash(); apply(); });
  document.body.setAttribute('data-rendered-runs', String(rows.length));
  apply();
})();
`;
