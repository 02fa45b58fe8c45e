// What fetch checks beyond the network, the same as Node's fetch: a blocked port
// fails without connecting (the first URL's; a redirect's needs the library), and
// `integrity` passes a matching body and fails another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import net from 'node:net';
import { once } from 'node:events';
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

// The library follows redirects itself: it refuses the blocked ports on each hop
// (sluice_request_set_redirect_rules), before anything connects.
test('a redirect to a blocked port is a network error too, and nothing connects there', async () => {
  // A listener on a blocked port (10080, on the fetch standard's list), counting who
  // connects; and a server that redirects there.
  let connections = 0;
  const blocked = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  blocked.listen(10080, '127.0.0.1');
  await once(blocked, 'listening');
  const redirecting = await startServer((request, response) => {
    response.writeHead(302, { location: 'http://127.0.0.1:10080/' });
    response.end();
  });
  const client = new Client();
  try {
    for (const [name, go] of both(client)) {
      const failure = await go(redirecting.base).catch((error) => error);
      assert.ok(failure instanceof TypeError, `${name}: ${failure}`);
      assert.equal(failure.message, 'fetch failed', name);
      assert.match(failure.cause?.message ?? '', /bad port/, name);
    }
    assert.equal(connections, 0);
  } finally {
    client.close();
    await stopServer(redirecting.server);
    blocked.close();
  }
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
