// A ReadableStream upload is pulled only as fast as the library takes it: against a
// server that reads nothing until told, the stream's pulls stop at what the upload
// buffer (the Client's uploadBuffer) and the socket hold, plus the stream's own
// highWaterMark; once the server reads, the upload completes byte for byte.
//
// The server listens on a Unix socket (helpers.mjs heldServer): loopback TCP may
// buffer tens of MiB and so hide a pump that reads ahead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Client, SluiceError } from '../index.mjs';
import { eventually, heldServer, socketBuffer } from './helpers.mjs';

const chunkSize = 16 * 1024;
const chunkCount = 4096;  // 64 MiB: a pump that reads ahead would take far past the bound
const uploadBuffer = 64 * 1024;
const highWaterMark = 2;  // chunks the stream itself queues ahead of its reader

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
    const answer = await response.json();
    assert.equal(answer.length, chunkCount * chunkSize);
    assert.equal(answer.sha256, expected.digest('hex'));
    assert.equal(pulled, chunkCount);
    assert.equal(client.stats().requestBodyBytesHeld, 0);
  } finally {
    client.close();
    await server.stop();
  }
});

test('a chunk larger than the upload buffer is not copied into the library whole', async () => {
  // One 64 MiB chunk (a Blob's stream gives a 64 MiB part as one). Written whole, the
  // library would copy all of it into its queue at once (its stats do not count that
  // queue, so the process's resident memory shows it); a piece at a time, it holds
  // about its upload buffer while the server does not read.
  const size = 64 * 1024 * 1024;
  const server = await heldServer();
  const big = new Uint8Array(size).fill(7);  // resident before the baseline
  const stream = new ReadableStream({
    start(controller) {
      controller.enqueue(big);
      controller.close();
    },
  });
  const client = new Client({ unixSocket: server.socketPath, uploadBuffer });
  try {
    const before = process.memoryUsage().rss;
    const sent = client.fetch('http://localhost/upload', { method: 'POST', body: stream, duplex: 'half' });
    await server.arrived;
    // The first write is done once the HTTP thread took bytes of it.
    await eventually(() => client.stats().requestBodyBytesHeld > 0);
    const grown = process.memoryUsage().rss - before;
    assert.ok(grown < size / 2, `resident memory grew by ${grown} bytes`);
    server.release();
    const answer = await (await sent).json();
    assert.equal(answer.length, size);
    assert.equal(answer.sha256, crypto.createHash('sha256').update(big).digest('hex'));
  } finally {
    client.close();
    await server.stop();
  }
});

test('a chunk the script detaches while its pieces go fails the fetch, never sends it short', async () => {
  // The pump reads the chunk it was given while the pieces go; once the script has
  // transferred its buffer, the rest of the bytes are gone.
  const server = await heldServer();
  const big = new Uint8Array(8 * 1024 * 1024).fill(1);
  const stream = new ReadableStream({ start(controller) { controller.enqueue(big); } });
  const client = new Client({ unixSocket: server.socketPath, uploadBuffer });
  try {
    const sent = client.fetch('http://localhost/upload', { method: 'POST', body: stream, duplex: 'half' });
    await server.arrived;
    await eventually(() => client.stats().requestBodyBytesHeld > 0);
    structuredClone(big.buffer, { transfer: [big.buffer] });
    server.release();
    await assert.rejects(sent, (error) => error instanceof TypeError && error.message === 'fetch failed');
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
