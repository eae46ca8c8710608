// Opens prof's HTML report and its timeline in a real browser (Debian's headless Chromium, driven
// by playwright-core) and checks what rendered:
//   1. the report from file://: the kernel table holds the expected names, the SVG bars, streams and
//      memory curve are drawn, the Findings section (with --findings, that many findings drawn), every timeline link names a file that exists; screenshot report.png;
//   2. each linked timeline JSON in speedscope (a trace viewer from the npm registry), both served
//      by a local server on 127.0.0.1: the file's name in the title, no error, a drawn canvas; and
//      each --lane among the profiles (one per timeline lane) of one of the files (a part of a
//      split timeline may lack a lane); screenshot timeline.png showing the first --lane.
// Any request that is neither file:// (report) nor that server (viewer) fails the check.
// --no-viewer checks the report only.
//
//   node test/browser/check_report.mjs --report OUT/result_42.report.html --shots DIR \
//        [--kernel NAME]... [--lane TEXT]... [--findings N] [--no-viewer] [--chromium /usr/bin/chromium]
// Prints one line per check and "N passed, N failed"; exit 0 when all passed, 1 otherwise.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

const kChromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const kTimeoutMs = 30000;

function parseArgs(argv) {
  const options = { kernels: [], lanes: [], chromium: '/usr/bin/chromium' };
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--no-viewer') {
      options.noViewer = true;
      continue;
    }
    const value = argv[i + 1];
    if (argv[i] === '--report') options.report = path.resolve(value);
    else if (argv[i] === '--shots') options.shots = path.resolve(value);
    else if (argv[i] === '--kernel') options.kernels.push(value);
    else if (argv[i] === '--lane') options.lanes.push(value);
    else if (argv[i] === '--findings') options.findings = Number(value);
    else if (argv[i] === '--chromium') options.chromium = value;
    else throw new Error(`unknown argument ${argv[i]}`);
    ++i;
  }
  if (!options.report || !options.shots) throw new Error('--report and --shots are required');
  return options;
}

let passed = 0;
let failed = 0;
function check(ok, what) {
  if (ok) ++passed;
  else ++failed;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  return ok;
}

// Every request the page makes goes through here: allowed ones continue, others are aborted and
// fail the run (the report must be self-contained; the viewer may use its own server only).
async function guardRequests(context, allowed, outside) {
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (allowed(url)) return route.continue();
    outside.push(url);
    return route.abort();
  });
}

function watchPage(page, problems) {
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('dialog', async (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    await dialog.dismiss();
  });
}

async function checkReport(context, options) {
  const outside = [];
  const problems = [];
  await guardRequests(context, (url) => url.startsWith('file://'), outside);
  const page = await context.newPage();
  watchPage(page, problems);
  await page.goto(pathToFileURL(options.report).href, { waitUntil: 'load', timeout: kTimeoutMs });
  const dom = await page.evaluate(() => {
    const texts = (selector) => [...document.querySelectorAll(selector)].map((e) => e.textContent);
    const widths = (selector) => [...document.querySelectorAll(selector)].map((e) => e.getBoundingClientRect().width);
    return {
      title: document.title,
      kernelNames: texts('#kernels-table td.name'),
      kernelBars: widths('svg[data-chart="kernels"] rect.bar'),
      apiBars: widths('svg[data-chart^="api"] rect.bar'),
      streamRows: document.querySelectorAll('#streams-table tr').length - 1,
      streamBars: widths('svg[data-chart="streams"] rect.bar'),
      memoryCurves: document.querySelectorAll('svg.memory path.curve').length,
      links: [...document.querySelectorAll('a.timeline-file')].map((a) => a.href),
      stripLinks: [...document.querySelectorAll('svg.timeline-strip a')].map((a) => a.href.baseVal),
      processes: document.querySelectorAll('#processes tr').length - 1,
      findingsHeading: document.querySelector('h2#findings')?.getBoundingClientRect().height ?? 0,
      // Each finding drawn: its title and its time at stake, with a height on the page.
      findings: [...document.querySelectorAll('section.finding')].map((e) => ({
        height: e.getBoundingClientRect().height,
        title: e.querySelector('h3')?.textContent ?? '',
        stake: e.querySelector('dd b')?.textContent ?? '',
      })),
    };
  });
  check(dom.title.startsWith('prof report: '), `report title "${dom.title}"`);
  check(dom.processes >= 1, `${dom.processes} process row(s) in the header`);
  for (const name of options.kernels)
    check(dom.kernelNames.includes(name), `kernel table names ${JSON.stringify(name)}`);
  check(dom.kernelBars.length >= 1 && dom.kernelBars.every((w) => w > 0),
    `${dom.kernelBars.length} kernel bars drawn`);
  check(dom.apiBars.length >= 1 && dom.apiBars.every((w) => w > 0), `${dom.apiBars.length} API bars drawn`);
  check(dom.streamRows >= 1 && dom.streamBars.length === dom.streamRows,
    `${dom.streamRows} streams, each with a bar`);
  check(dom.memoryCurves >= 1, `${dom.memoryCurves} memory curve(s) drawn`);
  check(dom.findingsHeading > 0, 'the Findings section is drawn');
  if (options.findings !== undefined) {
    check(dom.findings.length === options.findings &&
      dom.findings.every((f) => f.height > 20 && f.title.length > 3 && /\d/.test(f.stake)),
    `${dom.findings.length} finding(s) drawn with a title and a time at stake (expected ${options.findings})`);
  }
  const files = dom.links.map((href) => fileURLToPath(href));
  check(files.length >= 1, `${files.length} timeline file(s) linked`);
  for (const file of files) {
    check(path.dirname(file) === path.dirname(options.report) && fs.existsSync(file),
      `timeline link ${path.basename(file)} is a file beside the report`);
  }
  check(dom.stripLinks.length === files.length, 'the timeline strip links each file');
  const shot = path.join(options.shots, 'report.png');
  await page.screenshot({ path: shot, fullPage: true });
  check(fs.statSync(shot).size > 10000, `screenshot ${shot}`);
  check(outside.length === 0, `no request left file:// ${outside.join(' ')}`);
  check(problems.length === 0, `no page errors ${problems.join('; ')}`);
  await page.close();
  await context.unroute('**/*');
  return files;
}

// Serves speedscope's built viewer under /speedscope/ and the given files under /trace/, on
// 127.0.0.1 only.
function serve(viewerDir, traces) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
    '.wasm': 'application/wasm', '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2' };
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    let file = null;
    if (url.pathname.startsWith('/speedscope/')) {
      const relative = path.normalize(decodeURIComponent(url.pathname.slice('/speedscope/'.length)) || 'index.html');
      if (!relative.startsWith('..')) file = path.join(viewerDir, relative);
    } else if (url.pathname.startsWith('/trace/')) {
      file = traces.get(decodeURIComponent(url.pathname.slice('/trace/'.length))) || null;
    }
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      response.writeHead(404);
      response.end();
      return;
    }
    response.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// speedscope shows one profile (a timeline lane) at a time, its name and "(i/N)" in the toolbar;
// "n" goes to the next. Returns every profile's name, leaving the last one shown.
async function profileNames(page) {
  const current = () => page.evaluate(() => {
    const match = document.body.innerText.match(/^(.*) \((\d+)\/(\d+)\)$/m);
    return match ? { name: match[1], index: Number(match[2]), count: Number(match[3]) } : null;
  });
  let shown = await current();
  if (!shown) return [];
  const names = [shown.name];
  while (shown.index < shown.count) {
    const before = shown.index;
    await page.keyboard.press('n');
    await page.waitForFunction((i) => !document.body.innerText.includes(`(${i}/`), before, { timeout: kTimeoutMs });
    shown = await current();
    names.push(shown.name);
  }
  return names;
}

async function checkTimeline(context, options, files) {
  const viewerDir = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist', 'release');
  if (!check(fs.existsSync(path.join(viewerDir, 'index.html')), `speedscope viewer at ${viewerDir}`)) return;
  const traces = new Map(files.map((file) => [path.basename(file), file]));
  const server = await serve(viewerDir, traces);
  const origin = `http://127.0.0.1:${server.address().port}`;
  try {
    const outside = [];
    await guardRequests(context, (url) => url.startsWith(`${origin}/`) || url.startsWith('data:') ||
      url.startsWith('blob:'), outside);
    const allLanes = [];
    for (const [index, name] of [...traces.keys()].entries()) {
      const problems = [];
      const page = await context.newPage();
      watchPage(page, problems);
      const traceUrl = `${origin}/trace/${encodeURIComponent(name)}`;
      await page.goto(`${origin}/speedscope/index.html#profileURL=${encodeURIComponent(traceUrl)}`,
        { waitUntil: 'load', timeout: kTimeoutMs });
      // speedscope names the page after the profile once it has imported it.
      const loaded = await page.waitForFunction(() => document.title.endsWith(' - speedscope'), null,
        { timeout: kTimeoutMs }).then(() => true, () => false);
      await page.waitForTimeout(500);  // let the flame chart draw a frame
      const view = await page.evaluate(() => ({
        title: document.title,
        text: document.body.innerText,
        canvases: [...document.querySelectorAll('canvas')].filter((c) => c.width > 0 && c.height > 0).length,
      }));
      check(loaded, `speedscope loaded ${name} (title "${view.title}")`);
      check(!/went wrong|Unrecognized format|Failed to load/i.test(view.text), `speedscope shows no error for ${name}`);
      check(view.canvases >= 1, `speedscope drew ${view.canvases} canvas(es) for ${name}`);
      const lanes = await profileNames(page);
      allLanes.push(...lanes);
      // The screenshot shows the first lane asked for (speedscope's "p" goes to the previous profile).
      const shown = options.lanes.length ? lanes.findIndex((l) => l.includes(options.lanes[0])) : -1;
      for (let i = lanes.length - 1; shown >= 0 && i > shown; --i) await page.keyboard.press('p');
      await page.waitForTimeout(300);
      check(problems.length === 0, `no page errors in speedscope ${problems.join('; ')}`);
      const shot = path.join(options.shots, index === 0 ? 'timeline.png' : `timeline.${index + 1}.png`);
      await page.screenshot({ path: shot });
      check(fs.statSync(shot).size > 10000, `screenshot ${shot}`);
      await page.close();
    }
    for (const lane of options.lanes)
      check(allLanes.some((l) => l.includes(lane)), `speedscope shows lane "${lane}"`);
    check(outside.length === 0, `no request left ${origin} ${outside.join(' ')}`);
  } finally {
    await context.unroute('**/*');
    server.close();
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  fs.mkdirSync(options.shots, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'prof-chromium-'));
  let context = null;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: options.chromium, headless: true, args: kChromiumArgs,
      viewport: { width: 1280, height: 900 }, timeout: kTimeoutMs,
    });
    const files = await checkReport(context, options);
    if (!options.noViewer) await checkTimeline(context, options, files);
  } catch (error) {
    check(false, `browser run: ${error.stack || error}`);
  } finally {
    if (context) await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
}

await main();
