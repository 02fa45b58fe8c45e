// Backpressure from the reader to the network: an unread body holds the library's
// allowance and no more (nothing is read ahead on the JavaScript side), over h1 and h2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '../index.mjs';
import { env, eventually } from './helpers.mjs';

const allowance = 64 * 1024;

for (const [name, base, http] of [['h1', env.SLUICE_NGINX_HTTP_URL, 'auto'],
  ['h2', env.SLUICE_NGINX_H2_URL, '2']]) {
  test(`an unread 64 MiB body over ${name} holds its allowance, and reads on after`, async () => {
    const client = new Client({ caFile: env.SLUICE_TEST_CA, http, allowance });
    try {
      const response = await client.fetch(`${base}/64m.bin`);
      // Held at its allowance: the library says so (paused receiver), and what is
      // staged is within it, however long we leave it.
      await eventually(() => client.stats().pausedReceivers === 1);
      let stats = client.stats();
      assert.ok(stats.stagedBytes <= allowance, `staged ${stats.stagedBytes}`);
      assert.equal(stats.inFlight, 1);

      // One read takes one piece; the rest stays in the library, still bounded.
      const reader = response.body.getReader();
      const { value } = await reader.read();
      assert.ok(value.length > 0 && value.length <= allowance);
      await eventually(() => client.stats().pausedReceivers === 1);
      stats = client.stats();
      assert.ok(stats.stagedBytes <= stats.allowanceBytes, `staged ${stats.stagedBytes}`);
      assert.ok(stats.allowanceBytes <= allowance, `allowance ${stats.allowanceBytes}`);

      let total = value.length;
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        total += next.value.length;
      }
      assert.equal(total, 64 * 1024 * 1024);
    } finally {
      client.close();
    }
  });
}

test('an unread response that is dropped and collected ends its exchange', { skip: !global.gc }, async () => {
  const client = new Client({ allowance });
  await client.fetch(`${env.SLUICE_NGINX_HTTP_URL}/64m.bin`);
  await eventually(() => client.stats().pausedReceivers === 1);
  await eventually(() => { global.gc(); return client.stats().inFlight === 0; });
  assert.equal(client.stats().live, 0);
  client.close();
});
