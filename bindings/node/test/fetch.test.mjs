// GETs over h1, h1 TLS, h2 and h3 against the fixture's real servers: text, JSON and
// bytes arrive whole, and the Response is the platform's own.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, fetch } from '../index.mjs';
import { env, eventually, sha256, sha256Of, startServer, stopServer } from './helpers.mjs';

const routes = [
  { name: 'h1', base: env.SLUICE_NGINX_HTTP_URL, http: 'auto' },
  { name: 'h1 TLS', base: env.SLUICE_NGINX_HTTPS_URL, http: '1.1' },
  { name: 'h2', base: env.SLUICE_NGINX_H2_URL, http: '2' },
  { name: 'h3', base: env.SLUICE_GTLSSERVER_URL, http: '3-only' },
];
const clients = [];
after(() => clients.forEach((client) => client.close()));

for (const route of routes) {
  test(`a text and a binary file arrive whole over ${route.name}`, async () => {
    const client = new Client({ caFile: env.SLUICE_TEST_CA, http: route.http });
    clients.push(client);
    const text = await client.fetch(`${route.base}/small.txt`);
    assert.ok(text instanceof Response);
    assert.equal(text.status, 200);
    assert.equal(text.ok, true);
    assert.equal(text.url, `${route.base}/small.txt`);
    assert.equal(text.redirected, false);
    assert.equal(sha256(await text.text()), sha256Of('small.txt'));
    assert.equal(text.bodyUsed, true);

    const binary = await client.fetch(`${route.base}/1m.bin`);
    assert.equal(binary.headers.get('content-length'), '1048576');
    const bytes = new Uint8Array(await binary.arrayBuffer());
    assert.equal(bytes.length, 1048576);
    assert.equal(sha256(bytes), sha256Of('1m.bin'));
  });
}

test('json(), blob(), headers and clone() on a response from an in-process server', async () => {
  const { server, base } = await startServer((request, response) => {
    response.setHeader('set-cookie', ['a=1', 'b=2']);
    response.writeHead(201, { 'content-type': 'application/json', 'x-answer': '42' });
    response.end(JSON.stringify({ hello: 'sluice', path: request.url }));
  });
  try {
    const response = await fetch(`${base}/json?q=1`);
    assert.equal(response.status, 201);
    assert.equal(response.statusText, 'Created');
    assert.equal(response.headers.get('x-answer'), '42');
    assert.deepEqual(response.headers.getSetCookie(), ['a=1', 'b=2']);
    const copy = response.clone();
    assert.deepEqual(await response.json(), { hello: 'sluice', path: '/json?q=1' });
    const blob = await copy.blob();
    assert.equal(blob.type, 'application/json');
    assert.equal(await blob.text(), JSON.stringify({ hello: 'sluice', path: '/json?q=1' }));
  } finally {
    await stopServer(server);
  }
});

test('a body is a pull stream that a for-await loop reads to the end', async () => {
  const response = await fetch(`${env.SLUICE_NGINX_HTTP_URL}/1m.bin`);
  let total = 0;
  for await (const chunk of response.body) {
    assert.ok(chunk instanceof Uint8Array);
    total += chunk.length;
  }
  assert.equal(total, 1048576);
});

test('a HEAD and a 204 have a null body', async () => {
  const head = await fetch(`${env.SLUICE_NGINX_HTTP_URL}/1m.bin`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.body, null);
  assert.equal(await head.text(), '');
  const { server, base } = await startServer((request, response) => {
    response.writeHead(204);
    response.end();
  });
  try {
    const empty = await fetch(base);
    assert.equal(empty.status, 204);
    assert.equal(empty.body, null);
  } finally {
    await stopServer(server);
  }
});

test('an idle connection closes after 4 s, as Node\'s fetch closes its own', async () => {
  const client = new Client();
  clients.push(client);
  await (await client.fetch(`${env.SLUICE_NGINX_HTTP_URL}/small.txt`)).text();
  assert.equal(client.stats().connections, 1, 'the connection stays pooled after the fetch');
  // undici's keepAliveTimeout, 4 s: the library's own 60 s would outlast the wait.
  await eventually(() => client.stats().connections === 0);
});
