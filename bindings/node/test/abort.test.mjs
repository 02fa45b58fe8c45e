// AbortSignal: before the head, mid-body and after the end; the request is cancelled
// in the library, and the promise or the body rejects with the signal's reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '../index.mjs';
import { env, eventually, startServer, stopServer } from './helpers.mjs';

/** A server that takes each request's head and never answers: `arrived` settles at
 * the first head, `dropped` when the client closes that connection. */
async function silentServer() {
  let arrive;
  let drop;
  const arrived = new Promise((resolve) => { arrive = resolve; });
  const dropped = new Promise((resolve) => { drop = resolve; });
  const started = await startServer((request) => {
    request.socket.on('close', drop);
    arrive();
  });
  return { ...started, arrived, dropped };
}

test('an abort before the head rejects with an AbortError and cancels the request', async () => {
  const silent = await silentServer();
  const client = new Client();
  try {
    const controller = new AbortController();
    const sent = client.fetch(silent.base, { signal: controller.signal });
    await silent.arrived;
    controller.abort();
    await assert.rejects(sent, (error) => error.name === 'AbortError' && error instanceof DOMException);
    await silent.dropped;  // the library gave the connection up
    // Its cancelled head reaches the loop in a dispatch of its own, maybe after the
    // server saw the close: nothing is awaited once it has.
    await eventually(() => client.stats().awaiting === 0);
  } finally {
    client.close();
    await stopServer(silent.server);
  }
});

test('an already aborted signal rejects with its reason, and nothing is sent', async () => {
  const client = new Client();
  const reason = new Error('not today');
  await assert.rejects(client.fetch(`${env.SLUICE_NGINX_HTTP_URL}/small.txt`, {
    signal: AbortSignal.abort(reason),
  }), (error) => error === reason);
  assert.equal(client.stats().live, 0);
  client.close();
});

test('an abort mid-body errors the body with the reason', async () => {
  const client = new Client();
  const controller = new AbortController();
  const response = await client.fetch(`${env.SLUICE_NGINX_HTTP_URL}/64m.bin`, { signal: controller.signal });
  const reader = response.body.getReader();
  const first = await reader.read();
  assert.ok(first.value.length > 0);
  const reason = new Error('enough');
  controller.abort(reason);
  await assert.rejects(reader.read(), (error) => error === reason);
  // The library ends the exchange: nothing stays in flight.
  await assert.rejects(response.text(), TypeError);  // locked/errored, as Node's fetch
  client.close();
});

test('an abort after the end changes nothing', async () => {
  const client = new Client();
  const controller = new AbortController();
  const response = await client.fetch(`${env.SLUICE_NGINX_HTTP_URL}/small.txt`, { signal: controller.signal });
  const text = await response.text();
  controller.abort();
  assert.ok(text.length > 0);
  assert.equal(client.stats().live, 0);
  client.close();
});

test('cancelling the body stream cancels the request in the library', async () => {
  const client = new Client();
  const response = await client.fetch(`${env.SLUICE_NGINX_HTTP_URL}/64m.bin`);
  const reader = response.body.getReader();
  await reader.read();
  await reader.cancel();
  await reader.closed;  // a cancelled stream closes
  // The library ends the exchange (its end callback comes through the loop).
  await eventually(() => client.stats().live === 0);
  assert.equal(client.stats().awaiting, 0);
  client.close();
});

test('closing a client with fetches in flight rejects them, never crashes', async () => {
  const silent = await silentServer();
  const client = new Client();
  const waiting = client.fetch(silent.base);
  const reading = await client.fetch(`${env.SLUICE_NGINX_HTTP_URL}/64m.bin`);
  const reader = reading.body.getReader();
  await reader.read();
  await silent.arrived;
  client.close();
  await assert.rejects(waiting, (error) => error instanceof TypeError && error.cause?.code === 'cancelled');
  // The body's rest fails once what was staged is read.
  let failed;
  try {
    for (;;) if ((await reader.read()).done) break;
  } catch (error) {
    failed = error;
  }
  assert.ok(failed instanceof TypeError, `body ended with ${failed}`);
  assert.equal(failed.cause?.code, 'cancelled');
  assert.throws(() => client.stats(), /closed/);
  await assert.rejects(client.fetch(silent.base), (error) => error instanceof TypeError &&
    error.message === 'fetch failed' && error.cause?.category === 'usage' && /closed/.test(error.cause.message));
  await stopServer(silent.server);
});
