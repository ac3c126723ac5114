/** The page's inline style and script: `delta view` output opens with no network at all. */
export const PAGE_STYLE = `
:root { --fg:#1f2328; --muted:#656d76; --line:#d0d7de; --bg:#ffffff; --panel:#f6f8fa; --model:#8250df; --tool:#0969da; --ok:#1a7f37; --bad:#cf222e; --warn:#9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 1100px; margin: 0 auto; padding: 16px 24px; }
header { border-bottom: 1px solid var(--line); }
h1 { font-size: 20px; margin: 0 0 8px; font-weight: 600; }
h1 code { font-size: 18px; }
h2 { font-size: 16px; margin: 0; display: flex; gap: 12px; align-items: baseline; }
h2 .meta, .muted { color: var(--muted); font-weight: normal; font-size: 13px; }
.summary { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 4px 16px; margin: 8px 0 12px; }
.summary div { display: flex; flex-direction: column; }
.summary dt { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
.summary dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.status-COMPLETED { color: var(--ok); } .status-FAILED { color: var(--bad); } .status-INTERRUPTED, .status-WAITING_FOR_INPUT, .status-RUNNING { color: var(--warn); }
.controls { display: flex; gap: 8px; align-items: center; }
button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); cursor: pointer; }
.timeline { margin: 4px 0 0; }
.timeline a { display: grid; grid-template-columns: 90px 1fr 190px; gap: 10px; align-items: center; padding: 2px 0; color: inherit; text-decoration: none; }
.timeline a:hover { background: var(--panel); }
.bars { display: flex; height: 14px; background: var(--panel); border-radius: 3px; overflow: hidden; }
.bar { height: 100%; min-width: 2px; border-right: 1px solid #fff; }
.bar.model { background: var(--model); } .bar.tool { background: var(--tool); } .bar.tool.failed { background: var(--bad); }
.legend span { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 4px 0 12px; vertical-align: middle; }
.iteration, .run-event { border: 1px solid var(--line); border-radius: 8px; margin: 14px 0; padding: 12px 14px; }
.run-event { background: var(--panel); }
.thought { white-space: pre-wrap; margin: 8px 0; padding-left: 10px; border-left: 3px solid var(--model); }
.reasoning pre { color: var(--muted); font-style: italic; }
.tool-call { border: 1px solid var(--line); border-left: 4px solid var(--tool); border-radius: 6px; margin: 10px 0; padding: 8px 10px; }
.tool-call.failed { border-left-color: var(--bad); }
.tool-call.rejected { border-left-color: var(--bad); border-left-style: dashed; }
.tool-call.blocked { border-left-color: var(--warn); border-left-style: dashed; background: #fff8c5; }
.tool-head { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.tool-name { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-weight: 600; }
.badge { font-size: 12px; padding: 0 6px; border-radius: 10px; border: 1px solid currentColor; }
.badge.SUCCESS { color: var(--ok); } .badge.FAILED, .badge.ERROR, .badge.REJECTED { color: var(--bad); }
.badge.BLOCKED, .badge.REPLACED { color: var(--warn); font-weight: 600; }
pre { margin: 4px 0; padding: 8px; background: var(--panel); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; max-height: 480px; overflow: auto; }
details { margin: 4px 0; } summary { cursor: pointer; color: var(--muted); }
.note { color: var(--warn); font-size: 12px; }
.note.blocked, .note.rejected, .note.replaced { font-size: 13px; margin: 4px 0; }
.label { font-weight: 600; margin-right: 6px; }
.event-line { margin: 6px 0; white-space: pre-wrap; }
.event-line.ERROR, .event-line.FAILED { color: var(--bad); }
.chat { margin: 6px 0; display: flex; flex-direction: column; gap: 6px; }
.msg { border: 1px solid var(--line); border-radius: 8px; padding: 6px 10px; max-width: 92%; }
.msg .msg-text { background: transparent; padding: 0; max-height: 240px; }
.msg-role { font-size: 12px; font-weight: 600; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); }
.msg.role-system { background: var(--panel); }
.msg.role-user { align-self: flex-end; border-color: var(--ok); }
.msg.role-assistant { border-left: 3px solid var(--model); }
.msg.role-tool { border-left: 3px solid var(--tool); }
.msg-call { font-size: 12px; margin: 2px 0; overflow-wrap: anywhere; } .msg-call code { margin-left: 6px; }
`;

export const PAGE_SCRIPT = `
(function () {
  var details = document.querySelectorAll('details');
  document.getElementById('expand-all').addEventListener('click', function () { details.forEach(function (d) { d.open = true; }); });
  document.getElementById('collapse-all').addEventListener('click', function () { details.forEach(function (d) { d.open = false; }); });
  var count = document.querySelectorAll('section.iteration').length;
  document.body.setAttribute('data-rendered-iterations', String(count));
  document.getElementById('shown').textContent = count + (count === 1 ? ' iteration' : ' iterations') + ' shown';
})();
`;
