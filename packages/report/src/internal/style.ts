/** The report's one stylesheet, inlined in every page. */
export const REPORT_CSS = `
:root { color-scheme: light; --gold-hit: #c9f2c7; --gold-miss: #ffd3cf; --pred: #fff2b3; --border: #d9dde3; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; padding: 16px 24px 48px; max-width: 1400px; color: #1b1f24; }
h1 { font-size: 22px; margin: 8px 0 12px; } h2 { font-size: 18px; margin: 28px 0 10px; border-bottom: 1px solid var(--border); padding-bottom: 4px; } h3 { font-size: 15px; margin: 16px 0 6px; }
table { border-collapse: collapse; } th, td { padding: 4px 10px; border-bottom: 1px solid var(--border); text-align: right; white-space: nowrap; }
th[scope=row], thead th:first-child { text-align: left; }
.leaderboard thead th, .run-to-run thead th, .attempts thead th { background: #f3f5f8; }
.muted, .empty { color: #667; } .empty { font-style: italic; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; } .facts dt { color: #556; } .facts dd { margin: 0; }
.side-by-side { display: grid; grid-template-columns: 1fr 1fr; gap: 24px; } @media (max-width: 900px) { .side-by-side { grid-template-columns: 1fr; } }
.tag { display: inline-block; min-width: 2.2em; font-weight: 600; color: #445; }
.verdict.hit { color: #17692a; } .verdict.miss { color: #a3231a; } .warn { color: #8a5a00; }
.reason { color: #445; margin: 2px 0 6px 2.6em; white-space: pre-wrap; }
.code-view { margin: 12px 0; border: 1px solid var(--border); border-radius: 4px; overflow: auto; } .code-view figcaption { background: #f3f5f8; padding: 4px 8px; font-family: ui-monospace, monospace; }
table.code { width: 100%; font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; } table.code td { border: 0; padding: 0 8px; text-align: left; white-space: pre; }
table.code td.ln { color: #889; text-align: right; user-select: none; width: 1%; } table.code td.mark { width: 1%; color: #445; font-size: 11px; }
tr.gold.hit td, .swatch.gold.hit { background: var(--gold-hit); } tr.gold.miss td, .swatch.gold.miss { background: var(--gold-miss); }
tr.pred-wrong td, .swatch.pred-wrong { background: var(--pred); } tr.pred.pred-correct td.mark { font-weight: 700; }
tr.gap td { color: #889; background: #fafbfc; }
.swatch { display: inline-block; width: 14px; height: 14px; border: 1px solid var(--border); vertical-align: middle; margin: 0 4px 0 12px; }
ol.steps { list-style: none; padding: 0; } .step { border-left: 3px solid var(--border); padding: 4px 10px; margin: 6px 0; }
.step.command { border-color: #1f5fa8; } .step.model-call { border-color: #8a5a00; color: #554; } .step.role-assistant { border-color: #17692a; }
.step pre { margin: 4px 0; white-space: pre-wrap; word-break: break-word; font: 12.5px/1.4 ui-monospace, monospace; background: #f6f8fa; padding: 6px 8px; border-radius: 3px; max-height: 480px; overflow: auto; }
.step-number { color: #889; font-size: 12px; } .kind { font-weight: 600; } .exit.ok { color: #17692a; } .exit.bad, .error { color: #a3231a; }
.panel { display: block; margin: 0 0 16px; } .differences { margin: 4px 0; padding-left: 18px; }
svg.forest-plot { display: block; width: 100%; max-width: 1352px; height: auto; }
.warning { color: #8a5a00; }
.figure { font-variant-numeric: tabular-nums; font-weight: 600; }
.attempts td.status-succeeded { color: #17692a; } .attempts td.status-agent-error, .attempts td.status-limit-exceeded { color: #a3231a; }
.problems { color: #a3231a; }
.incident-sort { display: none; overflow-x: auto; scroll-margin-top: 56px; } .incident-sort.default, .incident-sort:target { display: block; }
.incident-sort:target ~ .incident-sort.default { display: none; }
table.incidents thead th { background: #f3f5f8; } table.incidents thead th a { color: inherit; text-decoration: none; display: block; } table.incidents thead th a:hover { text-decoration: underline; }
table.incidents th[aria-sort] { background: #e3e8ef; } .sort-mark { font-size: 10px; margin-left: 4px; }
table.incidents { width: 100%; } table.incidents .text { text-align: left; } table.incidents td[data-column="title"] { white-space: normal; min-width: 16em; }
table.incidents td.status { white-space: normal; min-width: 12em; } table.incidents td.status.ok { color: #17692a; } table.incidents td.status.bad { color: #a3231a; }
.unknown { color: #889; font-style: italic; }
.incident-file { margin: 6px 0; } .incident-file summary { cursor: pointer; } .tag-kind { color: #556; font-size: 12px; border: 1px solid var(--border); border-radius: 3px; padding: 0 4px; }
pre.incident-text { margin: 4px 0; white-space: pre-wrap; word-break: break-word; font: 12.5px/1.4 ui-monospace, monospace; background: #f6f8fa; padding: 6px 8px; border-radius: 3px; max-height: 480px; overflow: auto; }
`;
