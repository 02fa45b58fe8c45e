// A Request with a body given to fetch as its input: its body goes as Node's fetch
// sends it, which keeps the length and source the Request was made from. A string,
// bytes, a Blob, URLSearchParams or FormData go with Content-Length, and a followed
// 307 or 308 sends them again; a Request made from a stream goes chunked, and a 307
// then fails, as in Node's fetch. (Bytes go again too, where undici 6 fails: its
// stream over them took their buffer. Node's own fetch and sluice side by side:
// differential.test.mjs.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Client, SluiceError } from '../index.mjs';
import { env, framingHandler, heldServer, sha256, startServer, stopServer } from './helpers.mjs';

let node;
let client;
before(async () => {
  node = await startServer((request, response) => {
    if (request.url === '/307' || request.url === '/308') {
      response.writeHead(Number(request.url.slice(1)), { location: '/framing' });
      response.end();
      return;
    }
    framingHandler(request, response);
  });
  client = new Client();
});
after(async () => {
  client.close();
  await stopServer(node.server);
});


const form = () => {
  const made = new FormData();
  made.append('field', 'value');
  return made;
};

// [what the Request is made from, the body, what the server must receive]
const sources = [
  ['a string', () => 'kept body', 'kept body'],
  ['a Uint8Array', () => new TextEncoder().encode('kept bytes'), 'kept bytes'],
  ['an ArrayBuffer', () => new TextEncoder().encode('kept buffer').buffer, 'kept buffer'],
  ['a Blob', () => new Blob(['kept ', 'blob'], { type: 'text/x-kept' }), 'kept blob'],
  ['URLSearchParams', () => new URLSearchParams({ kept: 'yes' }), 'kept=yes'],
  ['a FormData', form, null],  // multipart: its boundary is new each time
];

for (const [name, make, expected] of sources) {
  test(`a Request made from ${name} goes with its length, and a followed 307 and 308 send it again`, async () => {
    for (const path of ['/framing', '/307', '/308']) {
      const request = new Request(`${node.base}${path}`, { method: 'POST', body: make() });
      const response = await client.fetch(request);
      assert.equal(response.status, 200, path);
      assert.equal(response.redirected, path !== '/framing');
      assert.equal(request.bodyUsed, true, 'fetch takes the input\'s body, as Node\'s does');
      const answer = await response.json();
      assert.equal(answer.method, 'POST', path);
      assert.equal(answer.transferEncoding, null, path);
      assert.equal(answer.contentLength, String(Buffer.byteLength(answer.body, 'latin1')), path);
      assert.equal(answer.contentType, request.headers.get('content-type'), path);
      if (expected !== null) assert.equal(answer.body, expected, path);
      else assert.match(answer.body, /name="field"\r\n\r\nvalue\r\n/, path);
    }
  });
}

test('a Request made from another Request keeps the body it took over', async () => {
  const first = new Request(`${node.base}/framing`, { method: 'POST', body: 'passed on' });
  const second = new Request(first, { method: 'PUT' });
  const answer = await (await client.fetch(second)).json();
  assert.equal(answer.method, 'PUT');
  assert.equal(answer.contentLength, '9');
  assert.equal(answer.body, 'passed on');
});

test('a Request made from a stream goes chunked, and a 307 cannot send it again', async () => {
  const streamed = () => new Request(`${node.base}/framing`, {
    method: 'POST', duplex: 'half', body: new Blob(['streamed']).stream(),
  });
  const answer = await (await client.fetch(streamed())).json();
  assert.equal(answer.transferEncoding, 'chunked');
  assert.equal(answer.body, 'streamed');
  const redirected = new Request(`${node.base}/307`, {
    method: 'POST', duplex: 'half', body: new Blob(['streamed']).stream(),
  });
  await assert.rejects(client.fetch(redirected), (error) => error instanceof TypeError &&
    error.message === 'fetch failed' && error.cause instanceof SluiceError);
});

test('a POST Request redirected by nginx\'s 302 becomes a GET without its body', async () => {
  // nginx's /redirect answers 302 to /small.txt: fetch changes a POST to a GET.
  const request = new Request(`${env.SLUICE_NGINX_HTTP_URL}/redirect`, { method: 'POST', body: 'dropped' });
  const response = await client.fetch(request);
  assert.equal(response.status, 200);
  assert.equal(response.redirected, true);
  assert.equal(response.url, `${env.SLUICE_NGINX_HTTP_URL}/small.txt`);
  assert.match(await response.text(), /^sluice: /);
});

test('a body in init replaces the input Request\'s', async () => {
  const request = new Request(`${node.base}/framing`, { method: 'POST', body: 'from the request' });
  const answer = await (await client.fetch(request, { body: 'from init' })).json();
  assert.equal(answer.body, 'from init');
  assert.equal(answer.contentLength, '9');
});

// Over the release threshold the body is streamed (request_body.mjs), with its length.
test('a Request made from a large Blob is streamed with its length', async () => {
  const bytes = new Uint8Array(crypto.randomBytes(4 * 1024 * 1024));
  const server = await heldServer();
  const local = new Client({ unixSocket: server.socketPath });
  try {
    const sent = local.fetch(new Request('http://localhost/upload', { method: 'PUT', body: new Blob([bytes]) }));
    await server.arrived;
    server.release();
    const answer = await (await sent).json();
    assert.equal(answer.sha256, sha256(bytes));
    assert.equal(answer.transferEncoding, null);
    assert.equal(answer.contentLength, String(bytes.length));
  } finally {
    local.close();
    await server.stop();
  }
});
