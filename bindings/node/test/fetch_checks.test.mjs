// What fetch checks beyond the network, the same as Node's fetch: a blocked port
// fails without connecting, and `integrity` passes a matching body and fails another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Client } from '../index.mjs';
import { startServer, stopServer } from './helpers.mjs';

const both = (client) => [['sluice', (u, i) => client.fetch(u, i)], ['node', fetch]];

test('a blocked port is a network error naming it, as in Node\'s fetch', async () => {
  const client = new Client();
  for (const [name, go] of both(client)) {
    const failure = await go('http://127.0.0.1:6000/').catch((error) => error);
    assert.ok(failure instanceof TypeError, name);
    assert.equal(failure.message, 'fetch failed', name);
    assert.equal(failure.cause?.message, 'bad port', name);
  }
  client.close();
});

test('integrity: a matching body arrives whole, another is a network error', async () => {
  const body = 'checked bytes';
  const started = await startServer((request, response) => response.end(body));
  const digest = crypto.createHash('sha384').update(body).digest('base64');
  const client = new Client();
  for (const [name, go] of both(client)) {
    const good = await go(started.base, { integrity: `sha256-AAAA sha384-${digest}` });
    assert.equal(await good.text(), body, name);
    assert.equal(good.url, `${started.base}/`, name);
    const bad = await go(started.base, { integrity: `sha384-${'A'.repeat(64)}` })
      .catch((error) => error);
    assert.ok(bad instanceof TypeError, `${name}: ${bad}`);
  }
  client.close();
  await stopServer(started.server);
});
