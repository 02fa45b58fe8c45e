// A ReadableStream upload is pulled only as fast as the library takes it: against a
// server that reads nothing until told, the stream's pulls stop at what the upload
// buffer (the Client's uploadBuffer) and the socket hold, plus the stream's own
// highWaterMark; once the server reads, the upload completes byte for byte.
//
// The server listens on a Unix socket: its kernel buffer is small and known
// (net.core.wmem_default), where loopback TCP may buffer tens of MiB and so hide a
// pump that reads ahead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Client, SluiceError } from '../index.mjs';
import { eventually } from './helpers.mjs';

const chunkSize = 16 * 1024;
const chunkCount = 4096;  // 64 MiB: a pump that reads ahead would take far past the bound
const uploadBuffer = 64 * 1024;
const highWaterMark = 2;  // chunks the stream itself queues ahead of its reader

/** An HTTP server on a Unix socket that reads a request's body only after
 * `release()`, then answers with the body's length and SHA-256. */
async function heldServer() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-upload-'));
  const socketPath = path.join(dir, 'server.sock');
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  let arrive;
  const arrived = new Promise((resolve) => { arrive = resolve; });
  const server = http.createServer(async (request, response) => {
    request.pause();
    arrive();
    await released;
    const hash = crypto.createHash('sha256');
    let length = 0;
    for await (const chunk of request) {
      hash.update(chunk);
      length += chunk.length;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ length, sha256: hash.digest('hex') }));
  });
  server.listen(socketPath);
  await once(server, 'listening');
  const stop = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { socketPath, arrived, release, stop };
}

/** What the kernel may hold of a Unix stream socket's sent bytes. */
function socketBuffer() {
  return Number(fs.readFileSync('/proc/sys/net/core/wmem_default', 'utf8'));
}

function chunk(index) {
  return new Uint8Array(chunkSize).fill(index % 251);
}

test('a ReadableStream upload is not pulled ahead of the library, and completes once read', async () => {
  const server = await heldServer();
  let pulled = 0;
  const expected = crypto.createHash('sha256');
  const stream = new ReadableStream({
    pull(controller) {
      if (pulled === chunkCount) {
        controller.close();
        return;
      }
      const next = chunk(pulled++);
      expected.update(next);
      controller.enqueue(next);
    },
  }, new CountQueuingStrategy({ highWaterMark }));
  const client = new Client({ unixSocket: server.socketPath, uploadBuffer });
  try {
    const sent = client.fetch('http://localhost/upload', { method: 'POST', body: stream, duplex: 'half' });
    await server.arrived;
    // The library takes at least its upload buffer before it pushes back.
    await eventually(() => pulled * chunkSize >= uploadBuffer);
    // The bound: the upload buffer, the write that crosses it, a piece in the
    // library's transport, the stream's queue and the chunk the pump holds, what the
    // socket buffers, and one read the server's socket took before it paused.
    const bound = uploadBuffer + (highWaterMark + 3) * chunkSize + socketBuffer() + 64 * 1024;
    // However many turns the loop runs while nobody reads, the pulls stay under it.
    // (A pump that read ahead would pass it within a turn or two: each pull is a
    // microtask.)
    for (let turn = 0; turn < 200; turn += 1) {
      assert.ok(pulled * chunkSize <= bound, `pulled ${pulled * chunkSize} bytes, bound ${bound}`);
      await nextTurn();
    }
    assert.ok(pulled < chunkCount);

    server.release();
    const response = await sent;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(),
      { length: chunkCount * chunkSize, sha256: expected.digest('hex') });
    assert.equal(pulled, chunkCount);
    assert.equal(client.stats().requestBodyBytesHeld, 0);
  } finally {
    client.close();
    await server.stop();
  }
});

test('an upload whose server goes away fails the fetch and cancels the stream', async () => {
  // The server closes the connection without reading: the fetch rejects as Node's
  // does, and the pump stops pulling and cancels the stream (its source can stop).
  const server = await heldServer();
  let cancelled;
  const stream = new ReadableStream({
    pull(controller) { controller.enqueue(chunk(0)); },
    cancel(reason) { cancelled = reason ?? 'cancelled'; },
  }, { highWaterMark: 0 });
  const client = new Client({ unixSocket: server.socketPath, uploadBuffer });
  try {
    const sent = client.fetch('http://localhost/upload', { method: 'POST', body: stream, duplex: 'half' });
    await server.arrived;
    await server.stop();
    await assert.rejects(sent, (error) => error instanceof TypeError && error.message === 'fetch failed' &&
      error.cause instanceof SluiceError);
    await eventually(() => cancelled !== undefined);
    assert.equal(client.stats().live, 0);
  } finally {
    client.close();
  }
});
