// A server may answer before it read the request body (a 413, a redirect, an early
// 200) and close. The upload then ends with the exchange: the pump that waited for
// room hears it, stops pulling and cancels the stream, even while the script leaves
// the response body unread. (The library once dropped the wait at the request's end,
// and the pump's promise stayed pending forever.)
//
// A Unix socket: the server's close leaves its answer readable (TCP's reset could
// discard it), and its small buffer fills fast, so the pump waits for room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '../index.mjs';
import { eventually, unixServer } from './helpers.mjs';

/** Answers every request at once with `early` and closes, reading none of its body. */
function earlyServer() {
  return unixServer((request, response) => {
    request.pause();
    response.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    response.end('early');
  });
}

test('an upload answered early stops pulling and cancels its stream, the response unread', async () => {
  const server = await earlyServer();
  let pulls = 0;
  let cancelled;
  const stream = new ReadableStream({
    pull(controller) {
      pulls += 1;
      controller.enqueue(new Uint8Array(64 * 1024).fill(7));
    },
    cancel(reason) { cancelled = reason ?? 'cancelled'; },
  }, { highWaterMark: 0 });
  const client = new Client({ unixSocket: server.socketPath, uploadBuffer: 64 * 1024 });
  try {
    const response = await client.fetch('http://localhost/upload',
      { method: 'POST', body: stream, duplex: 'half' });
    assert.equal(response.status, 200);
    // The body stays unread while the upload ends: nothing else settles the wait.
    await eventually(() => cancelled !== undefined);
    const pullsAtCancel = pulls;
    assert.equal(await response.text(), 'early');
    assert.equal(pulls, pullsAtCancel, 'the stream was pulled after it was cancelled');
    await eventually(() => client.stats().live === 0);
  } finally {
    client.close();
    await server.stop();
  }
});

test('closing the client ends a pump waiting for room', async () => {
  // The server reads nothing and never answers: the pump waits for room until the
  // client closes, then stops and cancels the stream.
  let arrive;
  const arrived = new Promise((resolve) => { arrive = resolve; });
  const server = await unixServer((request) => {
    request.pause();
    arrive();
  });
  let cancelled;
  const stream = new ReadableStream({
    pull(controller) { controller.enqueue(new Uint8Array(64 * 1024).fill(9)); },
    cancel(reason) { cancelled = reason ?? 'cancelled'; },
  }, { highWaterMark: 0 });
  const client = new Client({ unixSocket: server.socketPath, uploadBuffer: 64 * 1024 });
  try {
    const sent = client.fetch('http://localhost/upload', { method: 'POST', body: stream, duplex: 'half' });
    await arrived;
    client.close();
    await assert.rejects(sent, (error) => error instanceof TypeError && error.message === 'fetch failed');
    await eventually(() => cancelled !== undefined);
  } finally {
    await server.stop();
  }
});
