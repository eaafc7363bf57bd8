import { FONT } from './charts';

/** The page's only stylesheet, inlined: system fonts, no remote resource. */
export const STYLE = `
:root { --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --bg-soft: #f6f8fa; --good: #1a7f37; --bad: #cf222e; --warn: #9a6700; }
* { box-sizing: border-box; }
body { font-family: ${FONT}; color: var(--fg); margin: 0 auto; max-width: 1280px; padding: 0 24px 48px; line-height: 1.45; font-size: 14px; }
header { border-bottom: 1px solid var(--line); padding-bottom: 12px; }
h1 { font-size: 22px; margin: 20px 0 6px; }
h1 .run { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 15px; color: var(--muted); font-weight: normal; margin-left: 8px; }
h2 { font-size: 18px; margin: 36px 0 8px; padding-top: 8px; border-top: 1px solid var(--line); }
h3 { font-size: 15px; margin: 22px 0 6px; }
h3 .seed { color: var(--muted); font-weight: normal; font-size: 13px; margin-left: 6px; }
.status { font-weight: 600; margin: 4px 0 10px; }
.good { color: var(--good); } .bad { color: var(--bad); } .warn { color: var(--warn); }
.glance { display: flex; flex-wrap: wrap; gap: 6px 28px; margin: 8px 0; }
.glance div { display: flex; gap: 6px; } .glance dt { color: var(--muted); } .glance dd { margin: 0; }
nav ol { columns: 2; margin: 8px 0; padding-left: 20px; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
.nodata-tag { font-size: 11px; color: var(--muted); border: 1px solid var(--line); border-radius: 8px; padding: 0 6px; }
.nodata { color: var(--muted); background: var(--bg-soft); border-left: 3px solid var(--line); padding: 8px 12px; }
.nodata-summary { color: var(--muted); }
.lead { color: var(--muted); max-width: 980px; }
figure.chart { margin: 12px 0 20px; overflow-x: auto; }
figure.chart svg { display: block; max-width: none; height: auto; }
figcaption { color: var(--muted); font-size: 12.5px; max-width: 980px; margin-top: 4px; }
.table-wrap { overflow-x: auto; margin: 8px 0 16px; }
table { border-collapse: collapse; font-size: 12.5px; font-variant-numeric: tabular-nums; }
p.tcap { font-weight: 600; margin: 14px 0 2px; font-size: 13px; }
td.text { text-align: left; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: right; vertical-align: top; white-space: nowrap; }
thead th { background: var(--bg-soft); text-align: center; }
tbody th { text-align: left; font-weight: 600; background: #fbfcfd; }
table.summary td, table.summary th, table.facts td, table.bad-lines td, td.notes, td.options { text-align: left; white-space: normal; }
table.summary td:nth-child(4), table.summary td:nth-child(6) { max-width: 420px; }
td.options code, td.options { font-size: 11.5px; } code { background: var(--bg-soft); padding: 0 3px; border-radius: 3px; margin-right: 4px; display: inline-block; }
table.matrix td { text-align: center; }
td.supported { background: #dafbe1; color: #116329; }
td.unsupported { background: #ffebe9; color: #a40e26; }
td.failed { background: #fff8c5; color: #7d4e00; }
td.mixed { background: #fff1e5; color: #953800; }
td.missing { color: var(--muted); }
td.cached { background: #fff1e5; }
.flag-cache { color: #bc4c00; font-weight: 600; font-size: 11px; white-space: nowrap; }
.cache-share { color: #57606a; font-size: 11px; white-space: nowrap; }
.flag-net { color: #6639ba; font-weight: 600; font-size: 11px; white-space: nowrap; }
td.capped { background: #f5f0ff; }
details { margin: 6px 0 10px; } summary { cursor: pointer; font-weight: 600; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); padding-top: 10px; }
@media print { details { display: block; } nav { display: none; } }
`;
