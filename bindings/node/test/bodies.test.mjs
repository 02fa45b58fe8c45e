// Request bodies of every kind fetch takes, echoed by an in-process server (method,
// headers and bytes exactly as received), and over HTTP/2 by nghttpd --echo-upload;
// a large Blob or FormData is streamed as the network takes it, with its length.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Client, fetch } from '../index.mjs';
import {
  echoHandler, env, eventually, heldServer, sha256, socketBuffer, startServer, stopServer,
} from './helpers.mjs';

let echo;
before(async () => { echo = await startServer(echoHandler); });
after(() => stopServer(echo.server));

async function echoed(init) {
  const response = await fetch(`${echo.base}/echo`, { method: 'POST', ...init });
  assert.equal(response.status, 200);
  const answer = await response.json();
  return { ...answer, bytes: Buffer.from(answer.body, 'base64') };
}

const bytes = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);

const cases = [
  ['a string', () => 'héllo, sluice', Buffer.from('héllo, sluice'), 'text/plain;charset=UTF-8'],
  ['an ArrayBuffer', () => bytes.slice().buffer, Buffer.from(bytes), undefined],
  ['a Uint8Array view into a larger buffer', () => new Uint8Array(bytes.buffer, 10, 20),
    Buffer.from(bytes.subarray(10, 30)), undefined],
  ['a Float64Array', () => new Float64Array([1.5, -2]),
    Buffer.from(new Float64Array([1.5, -2]).buffer), undefined],
  ['a DataView', () => new DataView(bytes.buffer, 5, 7), Buffer.from(bytes.subarray(5, 12)), undefined],
  ['a Blob', () => new Blob(['blob ', 'parts'], { type: 'text/x-blob' }), Buffer.from('blob parts'),
    'text/x-blob'],
  ['URLSearchParams', () => new URLSearchParams({ a: 'b c', d: 'é' }), Buffer.from('a=b+c&d=%C3%A9'),
    'application/x-www-form-urlencoded;charset=UTF-8'],
];

for (const [name, make, expected, type] of cases) {
  test(`${name} body arrives byte for byte with its length`, async () => {
    const answer = await echoed({ body: make() });
    assert.equal(answer.method, 'POST');
    assert.deepEqual(answer.bytes, expected);
    assert.equal(answer.headers['content-length'], String(expected.length));
    assert.equal(answer.headers['content-type'], type);
  });
}

test('a FormData body is multipart with the boundary its Content-Type names', async () => {
  const form = new FormData();
  form.append('field', 'value');
  form.append('file', new Blob(['file bytes'], { type: 'text/plain' }), 'a.txt');
  const answer = await echoed({ body: form });
  const type = answer.headers['content-type'];
  assert.match(type, /^multipart\/form-data; boundary=/);
  const boundary = type.split('boundary=')[1];
  const text = answer.bytes.toString();
  assert.ok(text.startsWith(`--${boundary}\r\n`));
  assert.match(text, /name="field"\r\n\r\nvalue\r\n/);
  assert.match(text, /name="file"; filename="a.txt"\r\nContent-Type: text\/plain\r\n\r\nfile bytes\r\n/);
  assert.equal(answer.headers['content-length'], String(answer.length));
});

/** A Blob whose stream() counts the bytes its reader has pulled: how far the upload
 * has read it. (Blob.prototype.arrayBuffer does not go through stream().) */
class CountingBlob extends Blob {
  pulled = 0;

  stream() {
    const reader = super.stream().getReader();
    return new ReadableStream({
      pull: async (controller) => {
        const { value, done } = await reader.read();
        if (done) {
          controller.close();
        } else {
          this.pulled += value.byteLength;
          controller.enqueue(value);
        }
      },
    }, { highWaterMark: 0 });
  }
}

test('a large Blob is streamed as the network takes it, not read whole, and arrives exact', async () => {
  // 128 parts of 64 KiB: a Blob's stream gives one chunk per part, so how far it was
  // pulled shows how far the upload read ahead.
  const uploadBuffer = 64 * 1024;
  const parts = Array.from({ length: 128 }, () => new Uint8Array(crypto.randomBytes(64 * 1024)));
  const blob = new CountingBlob(parts);
  const server = await heldServer();
  const client = new Client({ unixSocket: server.socketPath, uploadBuffer });
  try {
    const sent = client.fetch('http://localhost/upload', { method: 'PUT', body: blob });
    await server.arrived;
    // Read through its stream (a Blob read whole into memory never is) ...
    await eventually(() => blob.pulled >= uploadBuffer);
    // ... and no further than the upload buffer, the socket, the piece the pump holds
    // and one the library's transport holds allow, however many turns the loop runs
    // while the server does not read.
    const bound = uploadBuffer + 2 * 64 * 1024 + socketBuffer() + 64 * 1024;
    for (let turn = 0; turn < 200; turn += 1) {
      assert.ok(blob.pulled <= bound, `pulled ${blob.pulled} bytes, bound ${bound}`);
      await nextTurn();
    }
    server.release();
    const answer = await (await sent).json();
    assert.equal(answer.length, blob.size);
    assert.equal(answer.sha256, sha256(Buffer.concat(parts)));
    assert.equal(blob.pulled, blob.size);
  } finally {
    client.close();
    await server.stop();
  }
});

// Streamed (over the release threshold), a Blob or FormData still declares its
// length: spec.streamLength reaches sluice_request_set_body_writer.
test('a large Blob and a large FormData go with their length (Content-Length), not chunked', async () => {
  const bytes = new Uint8Array(crypto.randomBytes(8 * 1024 * 1024));
  const form = new FormData();
  form.append('field', 'value');
  form.append('file', new Blob([bytes]), 'big.bin');
  for (const body of [new Blob([bytes]), form]) {
    const server = await heldServer();
    const client = new Client({ unixSocket: server.socketPath });
    try {
      const sent = client.fetch('http://localhost/upload', { method: 'PUT', body });
      await server.arrived;
      server.release();
      const answer = await (await sent).json();
      assert.equal(answer.transferEncoding, null, body.constructor.name);
      assert.equal(answer.contentLength, String(answer.length), body.constructor.name);
      if (body instanceof Blob) assert.equal(answer.sha256, sha256(bytes));
    } finally {
      client.close();
      await server.stop();
    }
  }
});

test('a large FormData arrives whole: its parts in order, the file byte for byte', async () => {
  const bytes = crypto.randomBytes(2 * 1024 * 1024);
  const form = new FormData();
  form.append('field', 'value');
  form.append('file', new Blob([bytes], { type: 'application/x-test' }), 'big.bin');
  const answer = await echoed({ body: form });
  const boundary = answer.headers['content-type'].split('boundary=')[1];
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="field"\r\n\r\nvalue\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
    'Content-Type: application/x-test\r\n\r\n');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  assert.deepEqual(answer.bytes, Buffer.concat([head, bytes, tail]));
});

test('headers go as a record, as pairs and as a Headers object', async () => {
  for (const headers of [{ 'X-One': '1', 'x-two': '2' }, [['X-One', '1'], ['X-Two', '2']],
    new Headers({ 'x-one': '1', 'x-two': '2' })]) {
    const answer = await echoed({ method: 'GET', headers });
    assert.equal(answer.headers['x-one'], '1');
    assert.equal(answer.headers['x-two'], '2');
    assert.equal(answer.headers.accept, '*/*');
  }
});

test('a ReadableStream body streams chunked and arrives whole', async () => {
  const pieces = Array.from({ length: 40 }, (_, i) => new Uint8Array(100_000).fill(i));
  let pulls = 0;
  const stream = new ReadableStream({
    pull(controller) {
      if (pulls === pieces.length) {
        controller.close();
        return;
      }
      controller.enqueue(pieces[pulls++]);
    },
  }, { highWaterMark: 0 });
  const client = new Client({ uploadBuffer: 64 * 1024 });
  try {
    const response = await client.fetch(`${echo.base}/stream`, { method: 'PUT', body: stream, duplex: 'half' });
    const answer = await response.json();
    assert.equal(answer.headers['transfer-encoding'], 'chunked');
    assert.equal(answer.length, 4_000_000);
    assert.equal(sha256(Buffer.from(answer.body, 'base64')), sha256(Buffer.concat(pieces)));
    assert.equal(client.stats().requestBodyBytesHeld, 0);
  } finally {
    client.close();
  }
});

// How far a stream is pulled against a server that does not read:
// upload_backpressure.test.mjs.

test('over HTTP/2 nghttpd echoes a bytes body, a streamed one and a large Blob', async () => {
  const client = new Client({ caFile: env.SLUICE_TEST_CA, http: '2' });
  try {
    const payload = new Uint8Array(300_000).map((_, i) => i % 253);
    const plain = await client.fetch(`${env.SLUICE_NGHTTPD_URL}/echo`, { method: 'POST', body: payload });
    assert.equal(sha256(new Uint8Array(await plain.arrayBuffer())), sha256(payload));
    const streamed = await client.fetch(`${env.SLUICE_NGHTTPD_URL}/echo`, {
      method: 'POST', duplex: 'half', body: new Blob([payload]).stream(),
    });
    assert.equal(sha256(new Uint8Array(await streamed.arrayBuffer())), sha256(payload));
    // Over the release threshold: a Blob streamed (with its length, where the addon
    // passes it on).
    const large = new Uint8Array(crypto.randomBytes(3 * 1024 * 1024));
    const blob = await client.fetch(`${env.SLUICE_NGHTTPD_URL}/echo`, { method: 'POST', body: new Blob([large]) });
    assert.equal(sha256(new Uint8Array(await blob.arrayBuffer())), sha256(large));
  } finally {
    client.close();
  }
});
