// Nothing a script passes can crash the process: wrong arguments to fetch get the
// TypeError Node's own fetch gives them, wrong Client options a TypeError (or the
// library's error for a value only it can judge) at `new Client`, and the addon's
// functions called directly with wrong types, foreign objects or closed handles
// throw instead of reading the wrong memory. After all of it, a fetch still works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, SluiceError, TlsError, UsageError, fetch as sluiceFetch } from '../index.mjs';
import { addon } from '../lib/addon.mjs';
import { env, sha256, sha256Of, startServer, stopServer } from './helpers.mjs';

const nodeFetch = globalThis.fetch;
const url = () => `${env.SLUICE_NGINX_HTTP_URL}/small.txt`;

/** How a call failed: thrown at once or rejected, and with what type. */
async function outcome(call) {
  let pending;
  try {
    pending = call();
  } catch (error) {
    return { how: 'thrown', type: error.constructor.name };
  }
  try {
    const response = await pending;
    await response.arrayBuffer();
    return { how: 'resolved' };
  } catch (error) {
    return { how: 'rejected', type: error.constructor.name };
  }
}

const fetchArguments = [
  ['no arguments', () => []],
  ['a number as the input', () => [42]],
  ['null as the input', () => [null]],
  ['a plain object as the input', () => [{}]],
  ['a number as init', () => [url(), 42]],
  ['a string as init', () => [url(), 'init']],
  ['a number as headers', () => [url(), { headers: 42 }]],
  ['a header pair of one', () => [url(), { headers: [['x-a']] }]],
  ['a header pair of three', () => [url(), { headers: [['x-a', '1', '2']] }]],
  ['a header value that is not a ByteString', () => [url(), { headers: { 'x-a': '€' } }]],
  ['a method with a space', () => [url(), { method: 'GE T' }]],
  ['a forbidden method', () => [url(), { method: 'TRACE' }]],
  ['a Symbol as the body', () => [url(), { method: 'POST', body: Symbol('body') }]],
  ['a plain object as the signal', () => [url(), { signal: {} }]],
  ['an unknown redirect mode', () => [url(), { redirect: 'sometimes' }]],
  ['a stream body with duplex full', () => [url(), { method: 'POST', body: new ReadableStream(), duplex: 'full' }]],
  ['an unknown mode', () => [url(), { mode: 'navigate' }]],
  ['an unknown credentials mode', () => [url(), { credentials: 'always' }]],
  ['a window that is not null', () => [url(), { window: {} }]],
];

for (const [name, args] of fetchArguments) {
  test(`fetch with ${name}: a TypeError, delivered as Node's fetch delivers it`, async () => {
    const theirs = await outcome(() => nodeFetch(...args()));
    const ours = await outcome(() => sluiceFetch(...args()));
    assert.equal(theirs.type, 'TypeError', `Node's fetch: ${JSON.stringify(theirs)}`);
    assert.deepEqual(ours, theirs);
  });
}

test('fetch with a Request whose body was read is a TypeError', async () => {
  const used = new Request(url(), { method: 'POST', body: 'once' });
  await used.text();
  assert.deepEqual(await outcome(() => sluiceFetch(used)), await outcome(() => nodeFetch(used)));
  assert.equal((await outcome(() => sluiceFetch(used))).type, 'TypeError');
});

const clientOptions = [
  [null, TypeError], [42, TypeError], ['options', TypeError],
  [{ http: 3 }, TypeError], [{ http: '4' }, TypeError], [{ http: 'toString' }, TypeError],
  [{ timeouts: 5 }, TypeError], [{ timeouts: { total: -1 } }, TypeError],
  [{ timeouts: { conect: 5 } }, TypeError], [{ timeout: 1.5 }, TypeError],
  [{ allowance: -1 }, TypeError], [{ allowance: [1] }, TypeError], [{ allowance: 'lots' }, TypeError],
  [{ decompress: 'yes' }, TypeError], [{ maxRedirects: -1 }, TypeError], [{ uploadBuffer: NaN }, TypeError],
  [{ maxBodySize: -1 }, TypeError], [{ noSuchOption: 1 }, TypeError], [{ hostDispatch: true }, TypeError],
  [{ caFile: 42 }, TypeError], [{ insecure: 'yes' }, TypeError], [{ resolve: [42] }, TypeError],
  [{ poolIdleTimeout: -5 }, TypeError], [{ tlsMinVersion: '1.1' }, TypeError],
  [{ tlsMinVersion: '1.3', tlsMaxVersion: '1.2' }, SluiceError], [{ ipVersion: 5 }, SluiceError],
  [{ caFile: '/nonexistent/ca.pem' }, TlsError], [{ proxy: 'not a url' }, UsageError],
];

test('wrong Client options throw at new Client: a TypeError, or the library\'s own error', () => {
  for (const [options, Type] of clientOptions) {
    assert.throws(() => new Client(options), (error) => error instanceof Type,
      `new Client(${JSON.stringify(options)})`);
  }
});

/** A raw Client handle and an exchange handle of it (after its head), for the table. */
async function handles() {
  const client = addon.clientNew({});
  const spec = { method: 'GET', url: url(), headers: [], version: 0, redirect: 1, maxRedirects: 5,
    decode: false };
  const [exchange, head] = addon.send(client, spec);
  await head;
  const closed = addon.clientNew({});
  addon.clientClose(closed);
  return { client, exchange, closed, spec };
}

const isLibraryError = (error) => typeof error.errno === 'number' && typeof error.category === 'string';

test('the addon\'s functions refuse wrong types, foreign objects and closed clients', async () => {
  const { client, exchange, closed, spec } = await handles();
  const detached = new ArrayBuffer(8);
  structuredClone(detached, { transfer: [detached] });
  const table = [
    // [call, what it must throw: TypeError, 'library' (a sluice code) or a message]
    [() => addon.clientNew(42), TypeError],
    [() => addon.clientNew([1]), TypeError],
    [() => addon.clientNew({ ca_file: 42 }), TypeError],
    [() => addon.clientNew({ ip_version: 5 }), 'library'],
    [() => addon.clientClose(undefined), TypeError],
    [() => addon.clientClose(exchange), TypeError],
    [() => addon.clientStats(new Client()), TypeError],           // the JS Client, not its handle
    [() => addon.clientStats(Object.create(client)), TypeError],  // inherits the tag's object
    [() => addon.clientStats(new Proxy(client, {})), TypeError],
    [() => addon.clientStats(closed), /closed/],
    [() => addon.send(), TypeError],
    [() => addon.send(closed, spec), /closed/],
    [() => addon.send(client, null), TypeError],
    [() => addon.send(client, {}), TypeError],
    [() => addon.send(client, { ...spec, url: 42 }), TypeError],
    [() => addon.send(client, { ...spec, headers: 'x-a: 1' }), TypeError],
    [() => addon.send(client, { ...spec, headers: ['x-a', 1] }), TypeError],
    [() => addon.send(client, { ...spec, headers: ['x-a', 'a\r\nx-b: b'] }), 'library'],
    [() => addon.send(client, { ...spec, version: 7 }), 'library'],
    [() => addon.send(client, { ...spec, redirect: 50 }), 'library'],
    [() => addon.send(client, { ...spec, redirect: -1 }), TypeError],
    [() => addon.send(client, { ...spec, maxRedirects: 'x' }), TypeError],
    [() => addon.send(client, { ...spec, decode: 1 }), TypeError],
    [() => addon.send(client, { ...spec, allowance: 5 }), TypeError],
    [() => addon.send(client, { ...spec, timeouts: { total: -1 } }), TypeError],
    [() => addon.send(client, { ...spec, method: 'POST', body: 'text' }), TypeError],
    [() => addon.send(client, { ...spec, method: 'POST', body: detached }), TypeError],
    [() => addon.send(client, { ...spec, method: 'POST', stream: true, uploadMark: -1 }), TypeError],
    [() => addon.send(client, { get method() { throw new RangeError('from a getter'); } }), /from a getter/],
    [() => addon.cancel({}), TypeError],
    [() => addon.cancel(client), TypeError],
    [() => addon.cancel(exchange, 42), TypeError],
    [() => addon.pull(null), TypeError],
    [() => addon.pull(client), TypeError],
    [() => addon.dropBody('exchange'), TypeError],
    [() => addon.whenWritable(exchange), TypeError],  // no streamed body
    [() => addon.write(exchange, new Uint8Array(1)), TypeError],
    [() => addon.write({}, new Uint8Array(1)), TypeError],
    [() => addon.closeBody(exchange), TypeError],
    [() => addon.abortBody(exchange, 42), TypeError],
  ];
  for (const [call, expected] of table) {
    let thrown;
    try {
      const result = call();
      // A send that was accepted: its head settles, either way, without harm.
      if (Array.isArray(result)) await result[1].catch(() => {});
    } catch (error) {
      thrown = error;
    }
    const shown = call.toString();
    assert.ok(thrown instanceof Error, `${shown} did not throw`);
    if (expected === 'library') assert.ok(isLibraryError(thrown), `${shown}: ${thrown}`);
    else if (expected instanceof RegExp) assert.match(thrown.message, expected, shown);
    else assert.ok(thrown instanceof expected, `${shown}: ${thrown}`);
  }
  addon.clientClose(client);
  addon.clientClose(client);  // idempotent
});

test('a streamed body written after its close, and a second pull while one waits, throw', async () => {
  // The server sends a head and then nothing: a pull of its body waits.
  const { server, base } = await startServer((request, response) => {
    response.writeHead(200, { 'content-length': '10' });
    response.flushHeaders();
  });
  const client = addon.clientNew({});
  try {
    const spec = { method: 'POST', url: `${base}/`, headers: [], version: 0, redirect: 1, maxRedirects: 5,
      decode: false, stream: true, uploadMark: 1024 };
    const [exchange, head] = addon.send(client, spec);
    addon.closeBody(exchange);
    assert.throws(() => addon.write(exchange, new Uint8Array(4)), isLibraryError);
    assert.equal((await head).status, 200);
    const first = addon.pull(exchange);
    assert.throws(() => addon.pull(exchange), /already waiting/);
    addon.cancel(exchange, 'done');
    await assert.rejects(first, (error) => isLibraryError(error) && error.category === 'cancelled');
  } finally {
    addon.clientClose(client);
    await stopServer(server);
  }
});

test('after all of it, the process fetches as before', async () => {
  global.gc?.();  // the handles made above are finalized without harm
  const response = await sluiceFetch(url());
  assert.equal(sha256(await response.text()), sha256Of('small.txt'));
});
