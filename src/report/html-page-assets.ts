/**
 * The HTML report page's own style and script (html-report-writer.ts): inline, each allowed by its
 * SHA-256 in the page's Content-Security-Policy, nothing loaded from anywhere (docs/cli.md, "The HTML page").
 *
 * The script reads the rows from the page's JSON island (`#examctl-rows`: one array per item,
 * `[group, id, where, before, after, note, record]`, `before`/`after` lists of `[label, value]`, value null
 * where not known, `record` the row as read) and draws each group's table a page at a time (all of the open
 * groups when printed). Every value reaches the page as text (`textContent`), never as markup.
 */
import { createHash } from 'node:crypto';

export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #1d2330; --muted: #5b6475; --line: #d8dde6; --band: #f5f7fa;
  --before: #fdecec; --after: #e8f6ec; --accent: #2452a6; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 24px 32px 48px; max-width: 1400px; color: var(--ink); background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 0; display: inline; }
.facts { margin: 0 0 16px; color: var(--muted); }
.facts div { margin: 2px 0; }
.warning { border-left: 4px solid #c77700; background: #fff6e5; padding: 8px 12px; margin: 12px 0; }
.counts { display: flex; flex-wrap: wrap; gap: 10px; margin: 16px 0 20px; padding: 0; list-style: none; }
.counts li { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 120px; background: var(--band); }
.counts li.total { background: #fff; }
.counts .n { display: block; font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.counts a { color: inherit; text-decoration: none; }
.counts a:hover .label { text-decoration: underline; }
.search { position: sticky; top: 0; z-index: 2; background: #fff; padding: 8px 0; border-bottom: 1px solid var(--line);
  display: flex; gap: 12px; align-items: center; }
.search input { font: inherit; padding: 6px 10px; width: min(480px, 100%); border: 1px solid #9aa3b2; border-radius: 4px; }
.search output { color: var(--muted); }
details { margin: 18px 0; }
summary { cursor: pointer; padding: 4px 0; }
summary .count { color: var(--muted); margin-left: 8px; }
table { border-collapse: collapse; width: 100%; margin-top: 8px; table-layout: fixed; }
th, td { border: 1px solid var(--line); padding: 5px 8px; text-align: left; vertical-align: top;
  overflow-wrap: anywhere; white-space: pre-line; }
th { background: var(--band); font-weight: 600; }
th button { font: inherit; font-weight: 600; border: 0; background: none; padding: 0; cursor: pointer; color: inherit; }
th[aria-sort="ascending"] button::after { content: " \\25B2"; }
th[aria-sort="descending"] button::after { content: " \\25BC"; }
col.id { width: 22%; } col.where { width: 10%; } col.before, col.after { width: 24%; } col.note { width: 20%; }
td .record { color: var(--muted); font-size: 12px; margin-top: 2px; white-space: normal; }
tbody tr:nth-child(even) td { background: #fafbfc; }
td.before div, td.after div { padding: 1px 4px; border-radius: 3px; margin: 1px 0; }
td.before div { background: var(--before); }
td.after div { background: var(--after); }
.label { font-weight: 600; }
.unknown { color: var(--muted); font-style: italic; }
.pager { display: flex; gap: 10px; align-items: center; margin-top: 6px; color: var(--muted); }
.pager button { font: inherit; padding: 2px 10px; }
.empty { color: var(--muted); padding: 6px 0; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
@media print {
  body { padding: 0; max-width: none; font-size: 10pt; }
  .search, .pager button, noscript { display: none; }
  summary { list-style: none; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; }
  th, td { padding: 2px 4px; }
}
`;

export const PAGE_SCRIPT = `
"use strict";
(() => {
  const PAGE = 100;
  const island = document.getElementById("examctl-rows");
  const rows = island === null ? [] : JSON.parse(island.textContent || "[]");
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  const count = (n) => n.toLocaleString("en-US");
  const tables = Array.from(document.querySelectorAll("section.group"), (section) => ({
    section,
    body: section.querySelector("tbody"),
    pager: section.querySelector(".pager"),
    heads: Array.from(section.querySelectorAll("th")),
    all: [],
    view: [],
    page: 0,
    sort: -1,
    descending: false,
  }));
  const byGroup = new Map(tables.map((table) => [table.section.dataset.group, table]));
  for (const row of rows) byGroup.get(String(row[0]))?.all.push(row);
  const lineText = (lines) => lines.map((line) => line.join(" ")).join("\\n");
  const searchText = new WeakMap();
  const textOf = (row) => {
    let text = searchText.get(row);
    if (text === undefined) {
      text = [row[1], row[6], row[2], lineText(row[3]), lineText(row[4]), row[5]].join("\\n").toLowerCase();
      searchText.set(row, text);
    }
    return text;
  };
  const keyOf = (row, column) => (column === 2 || column === 3 ? lineText(row[column + 1]) : row[column + 1]);
  const textCell = (text) => {
    const td = document.createElement("td");
    td.textContent = text;
    return td;
  };
  const idCell = (id, record) => {
    const td = textCell(id);
    if (record !== "") {
      const values = document.createElement("div");
      values.className = "record";
      values.textContent = record;
      td.append(values);
    }
    return td;
  };
  const linesCell = (lines, kind) => {
    const td = document.createElement("td");
    td.className = kind;
    for (const line of lines) {
      const div = document.createElement("div");
      if (line[0] !== "") {
        const label = document.createElement("span");
        label.className = "label";
        label.textContent = line[0];
        div.append(label, " ");
      }
      if (line.length > 1 && line[1] !== null) div.append(line[1]);
      else {
        const unknown = document.createElement("span");
        unknown.className = "unknown";
        unknown.textContent = line.length > 1 ? "not known" : "changes";
        div.append(unknown);
      }
      td.append(div);
    }
    return td;
  };
  let printing = false;
  const render = (table) => {
    const { view } = table;
    const pages = Math.max(1, Math.ceil(view.length / PAGE));
    table.page = Math.min(table.page, pages - 1);
    const from = printing ? 0 : table.page * PAGE;
    const to = printing ? view.length : Math.min(view.length, from + PAGE);
    const fragment = document.createDocumentFragment();
    for (let i = from; i < to; i++) {
      const row = view[i];
      const tr = document.createElement("tr");
      tr.append(idCell(row[1], row[6]), textCell(row[2]), linesCell(row[3], "before"), linesCell(row[4], "after"), textCell(row[5]));
      fragment.append(tr);
    }
    table.body.replaceChildren(fragment);
    const filtered = view.length === table.all.length ? "" : " (" + count(table.all.length) + " in all)";
    const said = view.length === 0 ? "no row matches" : "rows " + count(from + 1) + "-" + count(to) + " of " + count(view.length) + filtered;
    const previous = document.createElement("button");
    previous.type = "button";
    previous.textContent = "Previous";
    previous.disabled = table.page === 0;
    previous.addEventListener("click", () => { table.page -= 1; render(table); });
    const next = document.createElement("button");
    next.type = "button";
    next.textContent = "Next";
    next.disabled = table.page >= pages - 1;
    next.addEventListener("click", () => { table.page += 1; render(table); });
    const words = document.createElement("span");
    words.textContent = said;
    table.pager.replaceChildren(...(pages > 1 && !printing ? [previous, words, next] : [words]));
  };
  const sortView = (table) => {
    if (table.sort < 0) return;
    const column = table.sort;
    const keyed = table.view.map((row) => [keyOf(row, column), row]);
    keyed.sort((a, b) => collator.compare(a[0], b[0]));
    if (table.descending) keyed.reverse();
    table.view = keyed.map((pair) => pair[1]);
  };
  let query = "";
  const filter = (table) => {
    table.view = query === "" ? table.all.slice() : table.all.filter((row) => textOf(row).includes(query));
    sortView(table);
    table.page = 0;
    render(table);
  };
  for (const table of tables) {
    table.heads.forEach((th, column) => {
      const button = th.querySelector("button");
      button?.addEventListener("click", () => {
        table.descending = table.sort === column ? !table.descending : false;
        table.sort = column;
        for (const other of table.heads) other.removeAttribute("aria-sort");
        th.setAttribute("aria-sort", table.descending ? "descending" : "ascending");
        sortView(table);
        table.page = 0;
        render(table);
      });
    });
    filter(table);
  }
  const box = document.getElementById("search");
  const matches = document.getElementById("matches");
  let timer;
  box?.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      query = box.value.trim().toLowerCase();
      let shown = 0;
      for (const table of tables) {
        filter(table);
        shown += table.view.length;
      }
      matches.textContent = query === "" ? "" : count(shown) + " of " + count(rows.length) + " rows match";
    }, 120);
  });
  addEventListener("beforeprint", () => { printing = true; tables.forEach(render); });
  addEventListener("afterprint", () => { printing = false; tables.forEach(render); });
  document.documentElement.dataset.ready = "true";
})();
`;

/** `'sha256-...'`, the source a Content-Security-Policy allows an inline script or style by. */
export const cspHash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Nothing from anywhere: only this page's own style and script, by their hashes; no request of any kind. */
export const PAGE_POLICY = [
  "default-src 'none'",
  `script-src ${cspHash(PAGE_SCRIPT)}`,
  `style-src ${cspHash(PAGE_STYLE)}`,
  "img-src 'none'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
