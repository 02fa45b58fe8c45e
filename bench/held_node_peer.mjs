// The Node peer of `sluice-bench held`: what a response costs in Node's built-in
// fetch (undici) while nobody reads its body. Run by `held` over HTTP/1.1, or by
// hand:
//
//   node --expose-gc bench/held_node_peer.mjs URL COUNT
//
// It prints `name value` lines, as sluice-bench does. Uses only what a user of
// Node's fetch gets: no undici package, no custom dispatcher. For https with a test
// CA, give the CA in NODE_EXTRA_CA_CERTS.

const kMiB = 1024 * 1024;
// As in held: long enough after the last head for the state to be steady.
const kSettleMs = 5500;
// How long the heads may take. A connection limit per origin would hold fetches
// beyond it back forever (no body is read, so no connection frees up): this turns
// that into a failure instead of a hang.
const kHeadsDeadlineMs = 20000;

function fail(message) {
  process.stderr.write(`held_node_peer: ${message}\n`);
  process.exit(1);
}

function printFigure(name, value, decimals = 3) {
  process.stdout.write(`${name} ${value.toFixed(decimals)}\n`);
}

// Garbage is not what a held response costs: collect it before each reading, when
// node runs with --expose-gc (held runs it so).
function collect() {
  if (typeof globalThis.gc === 'function') globalThis.gc();
}

function checkStatus(response) {
  if (response.status < 200 || response.status > 299) {
    fail(`HTTP status ${response.status} for ${response.url} (expected 2xx)`);
  }
}

// One fetch dropped after its first chunk: the process's one-time costs (the TLS
// library's first handshake, undici's modules, the JIT's first pass over fetch)
// then land before the baseline, as held's own warm-up does for sluice.
async function warmUp(url) {
  const response = await fetch(url);
  checkStatus(response);
  const reader = response.body.getReader();
  await reader.read();
  await reader.cancel();
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Starts every fetch before awaiting any, and waits for all heads. Every head
// arriving while no body has been read shows that all `count` were in flight at once.
async function startAll(url, count) {
  let heads = 0;
  const pending = [];
  for (let i = 0; i < count; ++i) {
    pending.push(fetch(url).then((response) => {
      ++heads;
      return response;
    }));
  }
  let timer;
  const deadline = new Promise((resolve) => {
    timer = setTimeout(resolve, kHeadsDeadlineMs, null);
  });
  const responses = await Promise.race([Promise.all(pending), deadline]);
  clearTimeout(timer);
  if (responses === null) {
    fail(`only ${heads} of ${count} response heads arrived within ${kHeadsDeadlineMs / 1000} s ` +
         '(a connection limit per origin?)');
  }
  responses.forEach(checkStatus);
  return responses;
}

async function main() {
  const [url, countText] = process.argv.slice(2);
  const count = Number.parseInt(countText ?? '', 10);
  if (!url || !(count >= 1)) fail('usage: node --expose-gc held_node_peer.mjs URL COUNT');
  if (typeof globalThis.gc !== 'function') {
    process.stderr.write('held_node_peer: note: no --expose-gc, garbage is counted\n');
  }
  await warmUp(url);
  collect();
  const before = process.memoryUsage();
  const responses = await startAll(url, count);
  await sleep(kSettleMs);
  collect();
  const now = process.memoryUsage();
  const grown = now.rss - before.rss;
  // What JavaScript holds (V8's heap and the buffers outside it): steadier than RSS,
  // which moves by megabytes with the allocator's and V8's own bookkeeping.
  const js = (usage) => usage.heapUsed + usage.external;
  printFigure('node_held_count', responses.length, 0);
  printFigure('node_held_rss_mib_per_response', grown / kMiB / count);
  printFigure('node_held_rss_mib_total', grown / kMiB);
  printFigure('node_held_js_mib_per_response', (js(now) - js(before)) / kMiB / count);
  // The held connections would keep the event loop alive: end here.
  process.exit(0);
}

main().catch((error) => fail(error?.cause?.message ?? error?.message ?? String(error)));
