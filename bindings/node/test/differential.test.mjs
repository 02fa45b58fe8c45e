// The same requests through Node's own fetch (undici) and through sluice, over h1
// against an in-process node server and the fixture's nginx, and for data: and blob:
// URLs: status, statusText where both come from the same table, content-type and
// content-length, bodies (with how a request body was framed, where the server
// answers that), redirected, url and, for failures, the error's kind and how it is
// delivered (a synchronous throw or a rejection) must agree. A script written for
// Node's fetch then runs unchanged.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fetch as sluiceFetch } from '../index.mjs';
import { echoHandler, env, framingHandler, freePort, startServer, stopServer } from './helpers.mjs';

const nodeFetch = globalThis.fetch;
let node;
let refusedUrl;
before(async () => {
  // The node server answers exact bytes and redirects the way the cases need.
  node = await startServer((request, response) => {
    if (request.url === '/hop') {
      response.writeHead(307, { location: '/said' });
      response.end();
    } else if (request.url === '/said') {
      // Only what both clients send alike (their default headers differ).
      saidHandler(request, response);
    } else if (request.url === '/hop-to-framing') {
      response.writeHead(307, { location: '/framing' });
      response.end();
    } else if (request.url === '/framing') {
      framingHandler(request, response);
    } else if (request.url === '/odd-status') {
      response.writeHead(699, { 'content-type': 'text/plain', 'content-length': '3' });
      response.end('odd');
    } else if (request.url === '/teapot') {
      response.writeHead(418, { 'content-type': 'text/plain', 'content-length': '6' });
      response.end('teapot');
    } else {
      echoHandler(request, response);
    }
  });
  // A port nobody listens on, and not one of fetch's blocked ports.
  refusedUrl = `http://127.0.0.1:${await freePort()}/`;
});
after(async () => {
  URL.revokeObjectURL(blobUrl);
  await stopServer(node.server);
});

/** Answers "METHOD body" as text. */
function saidHandler(request, response) {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`${request.method} ${Buffer.concat(chunks)}`);
  });
}


/** What a script can see of one fetch: its answer, or how and with what it failed. */
async function summary(fetchImpl, url, init) {
  let pending;
  try {
    pending = fetchImpl(url, init);
  } catch (error) {
    return { thrown: errorKind(error) };
  }
  try {
    const response = await pending;
    return {
      status: response.status,
      ok: response.ok,
      redirected: response.redirected,
      url: response.url,
      type: response.headers.get('content-type'),
      length: response.headers.get('content-length'),
      location: response.headers.get('location'),
      body: Buffer.from(await response.arrayBuffer()).toString('base64'),
    };
  } catch (error) {
    return { rejected: errorKind(error) };
  }
}

/** The parts of an error both implementations share: the cause's own type and text
 * are the library's (undici gives a bare Error with a socket code), but both have one
 * for a network failure and none for a refused argument. */
function errorKind(error) {
  return { type: error.constructor.name, name: error.name, message: error.message,
    hasCause: error.cause instanceof Error };
}

const nginx = () => env.SLUICE_NGINX_HTTP_URL;
const blobUrl = URL.createObjectURL(new Blob(['from a blob'], { type: 'text/x-blob' }));
const cases = [
  ['a text file from nginx', () => `${nginx()}/small.txt`],
  ['a binary file from nginx', () => `${nginx()}/1m.bin`],
  ['a missing file from nginx', () => `${nginx()}/absent`],
  ['a followed redirect chain from nginx', () => `${nginx()}/redirect-chain/3`],
  ['a manual 301 from nginx', () => `${nginx()}/moved`, { redirect: 'manual' }],
  ['a manual 302 from nginx', () => `${nginx()}/redirect`, { redirect: 'manual' }],
  ['a refused redirect from nginx', () => `${nginx()}/redirect`, { redirect: 'error' }],
  ['a HEAD to nginx', () => `${nginx()}/1m.bin`, { method: 'HEAD' }],
  ['a 418 from node', () => `${node.base}/teapot`],
  ['a followed 307 from node keeps the POST and its body', () => `${node.base}/hop`,
    { method: 'POST', body: 'kept' }],
  ['a manual 307 from node', () => `${node.base}/hop`, { redirect: 'manual' }],
  ['a refused 307 from node', () => `${node.base}/hop`, { redirect: 'error' }],
  ['a refused connection', () => refusedUrl],
  ['an invalid URL', () => 'not a url'],
  ['a relative URL', () => '/relative'],
  ['a scheme fetch does not speak', () => 'ftp://127.0.0.1/'],
  ['a GET with a body', () => `${nginx()}/`, { body: 'x' }],
  ['a HEAD with a body', () => `${nginx()}/`, { method: 'HEAD', body: 'x' }],
  ['a forbidden method', () => `${nginx()}/`, { method: 'CONNECT' }],
  ['an invalid header name', () => `${nginx()}/`, { headers: { 'bad name': 'x' } }],
  ['an unknown redirect mode', () => `${nginx()}/`, { redirect: 'sideways' }],
  ['a stream body without duplex', () => `${node.base}/echo`, { method: 'POST', body: new ReadableStream() }],
  ['a 699 from node', () => `${node.base}/odd-status`],
  // A Request as the input, made anew for each (its body can be taken once).
  ['a Request with a string body', () => new Request(`${node.base}/framing`, { method: 'POST', body: 'kept' })],
  ['a Request with a string body through a followed 307',
    () => new Request(`${node.base}/hop-to-framing`, { method: 'POST', body: 'kept' })],
  ['a Request with a Blob body through a followed 307',
    () => new Request(`${node.base}/hop-to-framing`, { method: 'PUT', body: new Blob(['blob', ' kept']) })],
  ['a Request with a URLSearchParams body through a followed 307',
    () => new Request(`${node.base}/hop-to-framing`, { method: 'POST', body: new URLSearchParams({ a: 'b' }) })],
  ['a Request with a stream body', () => new Request(`${node.base}/framing`,
    { method: 'POST', duplex: 'half', body: new Blob(['streamed']).stream() })],
  ['a Request with a stream body through a 307', () => new Request(`${node.base}/hop-to-framing`,
    { method: 'POST', duplex: 'half', body: new Blob(['streamed']).stream() })],
  ['a data: URL', () => 'data:text/plain;charset=utf-8,h%C3%A9llo'],
  ['a base64 data: URL', () => 'data:application/octet-stream;base64,AAECAwQ='],
  ['a data: URL without a comma', () => 'data:text/plain'],
  ['a blob: URL', () => blobUrl],
  ['a POST to a blob: URL', () => blobUrl, { method: 'POST', body: 'y' }],
];

for (const [name, url, init] of cases) {
  test(`${name}: the same through Node's fetch and sluice`, async () => {
    const theirs = await summary(nodeFetch, url(), init);
    const ours = await summary(sluiceFetch, url(), init);
    assert.deepEqual(ours, theirs);
  });
}

test('statusText agrees where both take it from the standard table', async () => {
  // Node's fetch shows the server's reason phrase over h1; the C API has none, so
  // sluice gives the standard one. They agree where the server uses that one too.
  for (const path of ['/small.txt', '/absent', '/moved']) {
    const [theirs, ours] = await Promise.all([nodeFetch, sluiceFetch].map(async (fetchImpl) => {
      const response = await fetchImpl(`${nginx()}${path}`, { redirect: 'manual' });
      await response.arrayBuffer();
      return response.statusText;
    }));
    assert.equal(ours, theirs, path);
  }
});

test('an echoed POST: the server sees the same method, type and bytes', async () => {
  const init = () => ({ method: 'POST', body: new URLSearchParams({ a: '1', b: 'two' }),
    headers: { 'x-test': 'yes' } });
  const pick = async (fetchImpl) => {
    const answer = await (await fetchImpl(`${node.base}/p?q=1`, init())).json();
    return { method: answer.method, url: answer.url, body: answer.body,
      type: answer.headers['content-type'], test: answer.headers['x-test'],
      length: answer.headers['content-length'] };
  };
  assert.deepEqual(await pick(sluiceFetch), await pick(nodeFetch));
});
