// Byte bodies are lent to the library, not copied: the library owns none of an upload
// in flight, sends the script's own bytes, and keeps them valid even when the script
// transfers (detaches) the buffer mid-upload and the new owner is collected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Client } from '../index.mjs';
import { eventually, freePort, heldServer, sha256, startServer, stopServer } from './helpers.mjs';

function randomBytes(size) {
  return new Uint8Array(crypto.randomBytes(size));
}

test('a Uint8Array body is sent from the script\'s bytes: the library owns none of it', async () => {
  // The server holds the body unread on a Unix socket, whose small buffer keeps most
  // of the 8 MiB unsent while the stats are read: a copy the library made would still
  // be there (it frees one only once sent), where loopback TCP could have taken the
  // whole body and let the copy go first.
  const server = await heldServer();
  const client = new Client({ unixSocket: server.socketPath });
  try {
    const body = randomBytes(8 * 1024 * 1024);
    const expected = sha256(body);
    const sent = client.fetch('http://localhost/upload', { method: 'POST', body });
    await server.arrived;
    const stats = client.stats();
    assert.equal(stats.ownedUploadBytes, 0, 'the library copied the body');
    server.release();
    const answer = await (await sent).json();
    assert.equal(answer.length, body.length);
    assert.equal(answer.sha256, expected);
    assert.equal(answer.contentLength, String(body.length));
  } finally {
    client.close();
    await server.stop();
  }
});

test('a view sends only its own bytes, and an ArrayBuffer all of its', async () => {
  const started = await startServer((request, response) => {
    const hash = crypto.createHash('sha256');
    request.on('data', (chunk) => hash.update(chunk));
    request.on('end', () => response.end(hash.digest('hex')));
  });
  const client = new Client();
  const whole = randomBytes(1000);
  const view = new DataView(whole.buffer, 100, 300);
  const viewed = await client.fetch(started.base, { method: 'PUT', body: view });
  assert.equal(await viewed.text(), sha256(whole.subarray(100, 400)));
  const buffer = await client.fetch(started.base, { method: 'PUT', body: whole.buffer });
  assert.equal(await buffer.text(), sha256(whole));
  client.close();
  await stopServer(started.server);
});

test('a body the script transfers mid-upload still goes out whole, and nothing crashes', { skip: !global.gc }, async () => {
  const server = await heldServer();
  const client = new Client({ unixSocket: server.socketPath });
  try {
    let body = randomBytes(16 * 1024 * 1024);
    const expected = sha256(body);
    const sent = client.fetch('http://localhost/upload', { method: 'POST', body });
    await server.arrived;
    // Detach the script's buffer; its memory moves to the clone, which is then dropped.
    let moved = structuredClone(body.buffer, { transfer: [body.buffer] });
    assert.equal(body.byteLength, 0);
    moved = null;
    body = null;
    global.gc();
    global.gc();
    server.release();
    const answer = await (await sent).json();
    assert.equal(answer.length, 16 * 1024 * 1024);
    assert.equal(answer.sha256, expected);
    await eventually(() => client.stats().live === 0);
  } finally {
    client.close();
    await server.stop();
  }
});

test('a detached buffer is refused with a TypeError before anything is sent', async () => {
  const client = new Client();
  const body = new Uint8Array(16);
  structuredClone(body.buffer, { transfer: [body.buffer] });
  const url = `http://127.0.0.1:${await freePort()}/`;
  await assert.rejects(client.fetch(url, { method: 'POST', body }),
    (error) => error instanceof TypeError && /detached/.test(error.message));
  client.close();
});

test('a body on GET is refused as Node\'s fetch refuses it', async () => {
  const client = new Client();
  const body = new Uint8Array(4);
  const url = `http://127.0.0.1:${await freePort()}/`;
  const ours = await client.fetch(url, { body }).catch((error) => error);
  const theirs = await fetch(url, { body }).catch((error) => error);
  assert.ok(ours instanceof TypeError);
  assert.equal(ours.message, theirs.message);
  client.close();
});

test('a typed array that lies about its byteLength sends its real bytes, streamed or lent', async () => {
  class Liar extends Uint8Array {
    get byteLength() { return 2 ** 30; }
  }
  const started = await startServer((request, response) => {
    let length = 0;
    request.on('data', (chunk) => { length += chunk.length; });
    request.on('end', () => response.end(String(length)));
  });
  const client = new Client();
  try {
    const stream = new ReadableStream({ start(c) { c.enqueue(new Liar(16)); c.close(); } });
    const streamed = await client.fetch(started.base, { method: 'POST', body: stream, duplex: 'half' });
    assert.equal(await streamed.text(), '16');
    const lent = await client.fetch(started.base, { method: 'POST', body: new Liar(16) });
    assert.equal(await lent.text(), '16');
  } finally {
    client.close();
    await stopServer(started.server);
  }
});

test('a large byte body follows a 307 only with keepBodyForRedirect', async () => {
  // Over the release threshold the library lets the lent bytes go once sent, so the
  // 307 has nothing to send again; keepBodyForRedirect keeps them until the response.
  const started = await startServer((request, response) => {
    const hash = crypto.createHash('sha256');
    request.on('data', (chunk) => hash.update(chunk));
    request.on('end', () => {
      if (request.url === '/first') {
        response.writeHead(307, { location: '/second' });
        response.end();
      } else {
        response.end(hash.digest('hex'));
      }
    });
  });
  const body = randomBytes(1024 * 1024);
  const released = new Client();
  const kept = new Client({ keepBodyForRedirect: true });
  try {
    await assert.rejects(released.fetch(`${started.base}/first`, { method: 'POST', body }),
      (error) => error instanceof TypeError && error.message === 'fetch failed' &&
        /cannot resend/.test(error.cause?.message));
    const response = await kept.fetch(`${started.base}/first`, { method: 'POST', body });
    assert.equal(response.redirected, true);
    assert.equal(await response.text(), sha256(body));
    await assert.rejects(async () => new Client({ keepBodyForRedirect: 'yes' }), TypeError);
  } finally {
    released.close();
    kept.close();
    await stopServer(started.server);
  }
});
