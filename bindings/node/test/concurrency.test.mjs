// 1,000 fetches at once on one Client over h1 and over h2: every one succeeds with
// the right body, and once they are done the process is free to exit (the client's
// poll handle is referenced only while something is awaited).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client } from '../index.mjs';
import { env, sha256, sha256Of } from './helpers.mjs';

const runChild = promisify(execFile);
const idleScript = fileURLToPath(new URL('./fixtures/fetch_then_idle.mjs', import.meta.url));
const count = 1000;
const routes = [['h1', env.SLUICE_NGINX_HTTP_URL, '1.1'], ['h2', env.SLUICE_NGINX_H2_URL, '2']];

for (const [name, base, http] of routes) {
  test(`${count} concurrent fetches of a small file over ${name} all succeed`, async () => {
    const client = new Client({ http, caFile: env.SLUICE_TEST_CA });
    try {
      const bodies = await Promise.all(Array.from({ length: count }, async (_, i) => {
        const response = await client.fetch(`${base}/small.txt?i=${i}`);
        assert.equal(response.status, 200);
        return response.text();
      }));
      const expected = sha256Of('small.txt');
      assert.equal(bodies.filter((text) => sha256(text) === expected).length, count);
      const stats = client.stats();
      assert.equal(stats.inFlight, 0);
      assert.equal(stats.awaiting, 0);
      assert.equal(stats.live, 0);
    } finally {
      client.close();
    }
  });

  test(`after ${count} fetches over ${name}, a process with an open idle Client exits by itself`, async () => {
    // execFile's timeout is the deadline for a process that never exits (a
    // referenced handle): it is killed, and the test fails on the signal.
    const { stdout } = await runChild(process.execPath,
      [idleScript, `${base}/small.txt`, http, env.SLUICE_TEST_CA, sha256Of('small.txt'), String(count)],
      { env: process.env, timeout: 60_000 });
    assert.equal(stdout.trim(), String(count));
  });
}
