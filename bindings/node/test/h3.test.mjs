// HTTP/3: a Client with http: '3-only' fetches a binary file from the fixture's caddy
// (h3 over UDP beside its h1/h2 over TCP) whole, over QUIC and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '../index.mjs';
import { env, sha256, sha256Of } from './helpers.mjs';

test('a 1 MiB file over HTTP/3 from caddy arrives whole, over QUIC only', async () => {
  const client = new Client({ http: '3-only', caFile: env.SLUICE_TEST_CA });
  try {
    const response = await client.fetch(`${env.SLUICE_CADDY_URL}/1m.bin`);
    assert.equal(response.status, 200);
    assert.equal(response.statusText, '');  // h3 has no reason phrase
    assert.equal(response.url, `${env.SLUICE_CADDY_URL}/1m.bin`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.equal(bytes.length, 1048576);
    assert.equal(sha256(bytes), sha256Of('1m.bin'));
    const stats = client.stats();
    assert.equal(stats.quicFullHandshakes + stats.quicResumedHandshakes, 1);
    assert.equal(stats.tlsFullHandshakes + stats.tlsResumedHandshakes, 0);
  } finally {
    client.close();
  }
});
