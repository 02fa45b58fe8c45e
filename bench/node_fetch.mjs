// sluice's fetch for Node (bindings/node) beside Node's own fetch (undici), in the same
// run, on the same URLs, each measurement in a fresh child process so that one's heap
// does not count against the other:
//
//   SLUICE_TEST_ENV=build-release/test-env node bench/node_fetch.mjs [WORKLOAD...]
//
// WORKLOAD is held, upload, download, many or versions (default: all of them). The
// servers are the fixture's (tests/support/servers/start.sh BUILD writes the env file);
// the addon is $SLUICE_NODE_ADDON or the newest build's (bindings/node/lib/addon.mjs).
// Prints `name value` lines, then each ratio as ours over Node's (for memory: lower is
// better; for speed: higher is better). bench/README.md says what each one means.
//
//   held      128 h1 responses whose bodies nobody reads: RSS per response
//   upload    300 POSTs of 1 MiB Uint8Array bodies made first, all at once, to a node
//             http server (its own process): peak RSS over the start, and RSS left
//             after every response ended and two GCs
//   download  1 GiB over h1 from nginx, `for await` over the body: MiB/s
//   many      1,000 concurrent small GETs, five rounds: requests per second
//   versions  held over h2 and h3 (sluice only: Node's fetch speaks neither by default)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const kMiB = 1024 * 1024;
const here = fileURLToPath(import.meta.url);
const sluicePackage = path.join(path.dirname(here), '..', 'bindings', 'node', 'index.mjs');

function readEnv() {
  const root = process.env.SLUICE_TEST_ENV;
  if (!root) {
    process.stderr.write('node_fetch: set SLUICE_TEST_ENV to BUILD/test-env ' +
      '(tests/support/servers/start.sh BUILD)\n');
    process.exit(2);
  }
  const values = {};
  for (const line of fs.readFileSync(path.join(root, 'env'), 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && !line.startsWith('#')) values[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return values;
}

// ---- in the child: one workload with one fetch ------------------------------------

function rssBytes() {
  return process.memoryUsage.rss();
}

// The kernel's high-water mark of this process's RSS (VmHWM), in bytes.
function peakRssBytes() {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

function collect() {
  globalThis.gc();
  globalThis.gc();
}

async function settle(ms) {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

async function fetcherOf(impl, options) {
  if (impl === 'node') return globalThis.fetch;
  const { Client } = await import(sluicePackage);
  const client = new Client(options);
  const bound = (input, init) => client.fetch(input, init);
  bound.client = client;
  return bound;
}

async function held(fetch, url, count) {
  // Warm up: the first fetch pays for modules, TLS and the JIT.
  const first = await fetch(url);
  await first.body.cancel();
  collect();
  await settle(500);
  const before = rssBytes();
  const responses = await Promise.all(Array.from({ length: count }, () => fetch(url)));
  for (const response of responses) {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  }
  // Long enough for each connection's receive buffers and windows to fill.
  await settle(3000);
  collect();
  const perResponse = (rssBytes() - before) / count / kMiB;
  await Promise.all(responses.map((response) => response.body.cancel()));
  return { held_mib_per_response: perResponse };
}

async function upload(fetch, url, count, size) {
  const start = rssBytes();
  let bodies = Array.from({ length: count }, (_, i) => new Uint8Array(size).fill(i & 0xff));
  const results = await Promise.all(bodies.map(async (body) => {
    const response = await fetch(url, { method: 'POST', body });
    return Number(await response.text());
  }));
  const received = results.reduce((sum, n) => sum + n, 0);
  if (received !== count * size) throw new Error(`the server received ${received} bytes`);
  const peak = peakRssBytes() - start;
  bodies = null;
  collect();
  // Past the library's sweep (4 s), which frees what idle connections kept.
  await settle(4500);
  collect();
  return { peak_mib: peak / kMiB, resident_after_mib: (rssBytes() - start) / kMiB };
}

async function download(fetch, url) {
  const started = process.hrtime.bigint();
  const response = await fetch(url);
  let total = 0;
  for await (const chunk of response.body) total += chunk.length;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { mib_per_s: total / kMiB / seconds, bytes: total };
}

async function many(fetch, url, concurrency, rounds) {
  const one = async () => (await fetch(url)).arrayBuffer();
  await Promise.all(Array.from({ length: 50 }, one));  // warm up
  const started = process.hrtime.bigint();
  for (let round = 0; round < rounds; ++round) {
    await Promise.all(Array.from({ length: concurrency }, one));
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { requests_per_s: (concurrency * rounds) / seconds };
}

async function child(args) {
  const [workload, impl, url, ...rest] = args;
  const options = JSON.parse(rest[0] ?? '{}');
  const fetch = await fetcherOf(impl, options);
  let result;
  if (workload === 'held') result = await held(fetch, url, 128);
  if (workload === 'upload') result = await upload(fetch, url, 300, kMiB);
  if (workload === 'download') result = await download(fetch, url);
  if (workload === 'many') result = await many(fetch, url, 1000, 5);
  fetch.client?.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

// ---- in the parent: run both, print figures and ratios ---------------------------

function run(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', here, '--child', ...args],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (data) => { out += data; });
    proc.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${args.slice(0, 2).join(' ')} exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

function print(name, value) {
  process.stdout.write(`${name} ${value.toFixed(3)}\n`);
}

/** A node http server in its own process that counts each POST's bytes and answers
 * the count, as the measurement of Node's fetch did. */
async function startUploadSink() {
  const script = `
    const http = require('node:http');
    const server = http.createServer((req, res) => {
      let n = 0;
      req.on('data', (chunk) => { n += chunk.length; });
      req.on('end', () => res.end(String(n)));
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const proc = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => proc.stdout.once('data', (d) => resolve(Number(d))));
  return { url: `http://127.0.0.1:${port}/upload`, stop: () => proc.kill() };
}

/** Reads `file` once, so that nginx serves it from the page cache to both clients:
 * a file pushed out of the cache (by a build, say) is read from disk by whichever
 * client runs first (one such run took 79 MiB/s, the next 902). */
async function warmPageCache(file) {
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) void chunk;
}

async function compare(workload, url, figure, better, options = {}) {
  const ours = await run([workload, 'sluice', url, JSON.stringify(options)]);
  const theirs = await run([workload, 'node', url]);
  print(`${workload}_${figure}`, ours[figure]);
  print(`node_${workload}_${figure}`, theirs[figure]);
  print(`${workload}_${figure}_ratio_vs_node`, ours[figure] / theirs[figure]);
  if (better) process.stdout.write(`# ${workload}: ${better}\n`);
  return { ours, theirs };
}

async function parent(workloads) {
  const env = readEnv();
  const h1 = env.SLUICE_NGINX_HTTP_URL;
  for (const workload of workloads) {
    if (workload === 'held') {
      // Every response open at once, as Node's fetch (no limit per origin) has them.
      await compare('held', `${h1}/64m.bin`, 'held_mib_per_response', 'lower is better',
        { maxConnectionsPerOrigin: 128 });
    } else if (workload === 'upload') {
      const sink = await startUploadSink();
      try {
        const { ours, theirs } = await compare('upload', sink.url, 'peak_mib', 'lower is better',
          { maxConnectionsPerOrigin: 300 });
        print('upload_resident_after_mib', ours.resident_after_mib);
        print('node_upload_resident_after_mib', theirs.resident_after_mib);
      } finally {
        sink.stop();
      }
    } else if (workload === 'download') {
      await warmPageCache(path.join(env.SLUICE_FILES_DIR, '1g.bin'));
      await compare('download', `${h1}/1g.bin`, 'mib_per_s', 'higher is better');
    } else if (workload === 'many') {
      await compare('many', `${h1}/small.txt`, 'requests_per_s', 'higher is better');
    } else if (workload === 'versions') {
      const tls = { caFile: env.SLUICE_TEST_CA };
      // One connection each: the responses are streams of it.
      const h2 = await run(['held', 'sluice', `${env.SLUICE_NGINX_H2_URL}/64m.bin`,
        JSON.stringify({ ...tls, http: '2' })]);
      print('held_h2_mib_per_response', h2.held_mib_per_response);
      const h3 = await run(['held', 'sluice', `${env.SLUICE_CADDY_URL}/64m.bin`,
        JSON.stringify({ ...tls, http: '3-only' })]);
      print('held_h3_mib_per_response', h3.held_mib_per_response);
    } else {
      throw new Error(`unknown workload ${workload}`);
    }
  }
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  await child(argv.slice(1));
} else {
  await parent(argv.length ? argv : ['held', 'upload', 'download', 'many', 'versions']);
}
