// Every way a script reads a Response: text(), json(), arrayBuffer(), blob(),
// formData(), the body stream (default and BYOB readers), bodyUsed and clone(); a body
// read twice rejects with a TypeError, as with Node's own fetch.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fetch } from '../index.mjs';
import { env, sha256, sha256Of, startServer, stopServer } from './helpers.mjs';

let server;
before(async () => {
  server = await startServer((request, response) => {
    const answers = {
      // "é" split between two writes: text() must decode across pieces.
      '/split': ['text/plain; charset=utf-8', [Buffer.from([0x68, 0xc3]), Buffer.from([0xa9, 0x21])]],
      '/json': ['application/json', ['{"a": [1, 2', ', {"b": null}]}']],
      '/not-json': ['application/json', ['{"a": ']],
      '/form': ['application/x-www-form-urlencoded', ['a=1&b=two+words']],
    };
    const [type, pieces] = answers[request.url];
    response.writeHead(200, { 'content-type': type });
    for (const piece of pieces) response.write(piece);
    response.end();
  });
});
after(() => stopServer(server.server));

test('text() decodes UTF-8 split across pieces', async () => {
  const response = await fetch(`${server.base}/split`);
  assert.equal(response.bodyUsed, false);
  assert.equal(await response.text(), 'hé!');
  assert.equal(response.bodyUsed, true);
});

test('json() parses, and rejects a body that is not JSON with a SyntaxError', async () => {
  assert.deepEqual(await (await fetch(`${server.base}/json`)).json(), { a: [1, 2, { b: null }] });
  await assert.rejects((await fetch(`${server.base}/not-json`)).json(), SyntaxError);
});

test('arrayBuffer() and blob() hold the whole body with its type', async () => {
  const bytes = await (await fetch(`${env.SLUICE_NGINX_HTTP_URL}/1m.bin`)).arrayBuffer();
  assert.ok(bytes instanceof ArrayBuffer);
  assert.equal(sha256(new Uint8Array(bytes)), sha256Of('1m.bin'));
  const blob = await (await fetch(`${env.SLUICE_NGINX_HTTP_URL}/small.txt`)).blob();
  assert.ok(blob instanceof Blob);
  assert.match(blob.type, /^text\/plain/);
  assert.equal(sha256(Buffer.from(await blob.arrayBuffer())), sha256Of('small.txt'));
});

test('formData() parses a urlencoded body', async () => {
  const form = await (await fetch(`${server.base}/form`)).formData();
  assert.deepEqual([...form], [['a', '1'], ['b', 'two words']]);
});

test('a BYOB reader fills its own buffer to the end of the body', async () => {
  const response = await fetch(`${env.SLUICE_NGINX_HTTP_URL}/1m.bin`);
  const reader = response.body.getReader({ mode: 'byob' });
  const parts = [];
  for (;;) {
    const { value, done } = await reader.read(new Uint8Array(10_000));
    if (done) break;
    assert.ok(value.length > 0 && value.length <= 10_000);
    parts.push(Buffer.from(value));
  }
  assert.equal(sha256(Buffer.concat(parts)), sha256Of('1m.bin'));
});

const readers = ['text', 'json', 'arrayBuffer', 'blob'];
for (const first of readers) {
  test(`after ${first}(), every reader rejects with a TypeError and bodyUsed stays true`, async () => {
    const response = await fetch(`${server.base}/json`);
    await response[first]();
    for (const again of readers) {
      await assert.rejects(response[again](), TypeError, `${first} then ${again}`);
    }
    assert.equal(response.bodyUsed, true);
    assert.throws(() => response.clone(), TypeError);
  });
}

test('a locked body rejects the readers too', async () => {
  const response = await fetch(`${server.base}/json`);
  const reader = response.body.getReader();
  await assert.rejects(response.text(), TypeError);
  reader.releaseLock();
  assert.deepEqual(await response.json(), { a: [1, 2, { b: null }] });
});

test('clone() gives two whole bodies and keeps url, redirected and type', async () => {
  const base = env.SLUICE_NGINX_HTTP_URL;
  const response = await fetch(`${base}/redirect-chain/2`);
  const copy = response.clone();
  for (const one of [response, copy]) {
    assert.equal(one.url, `${base}/small.txt`);
    assert.equal(one.redirected, true);
    assert.equal(one.type, 'basic');
    assert.equal(one.status, 200);
  }
  // Read in turn: the tee keeps what one branch has not read yet.
  assert.equal(sha256(await copy.text()), sha256Of('small.txt'));
  assert.equal(sha256(await response.text()), sha256Of('small.txt'));
  // A clone of a clone, of a fetch with no redirect, is still the fetch's.
  const plain = await fetch(`${base}/small.txt`);
  const twice = plain.clone().clone();
  assert.equal(twice.url, `${base}/small.txt`);
  assert.equal(twice.redirected, false);
  await Promise.all([plain.arrayBuffer(), twice.arrayBuffer()]);
});

test('a status from 600 to 999 is the Response\'s status, not ok, as Node\'s fetch gives it', async () => {
  // `new Response` refuses these (200 to 599 only); undici's fetch gives them as they
  // came. The reason phrase is the standard table's, which has none for them.
  const { server: odd, base } = await startServer((request, response) => {
    response.writeHead(Number(request.url.slice(1)), { 'content-type': 'text/plain' });
    response.end(`status ${request.url.slice(1)}`);
  });
  try {
    for (const status of [600, 699, 999]) {
      const response = await fetch(`${base}/${status}`);
      assert.equal(response.status, status);
      assert.equal(response.ok, false);
      assert.equal(response.statusText, '');
      assert.equal(response.headers.get('content-type'), 'text/plain');
      const copy = response.clone();
      assert.equal(copy.status, status);
      assert.equal(copy.ok, false);
      assert.equal(await response.text(), `status ${status}`);
      assert.equal(await copy.text(), `status ${status}`);
    }
  } finally {
    await stopServer(odd);
  }
});
