// A Client that becomes garbage with fetches in flight: what is still awaited keeps
// it alive and completes; what nobody can reach any more is ended with it, and the
// process neither crashes nor hangs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client } from '../index.mjs';
import { backoff } from './backoff.mjs';
import { env, sha256, sha256Of } from './helpers.mjs';

const runChild = promisify(execFile);
const collectScript = fileURLToPath(new URL('./fixtures/collect_busy_client.mjs', import.meta.url));

test('fetches awaited after their Client is dropped complete through collections', { skip: !global.gc },
  async () => {
    // Only the promises are kept: each keeps its exchange, and so the Client, alive.
    const fetches = (() => {
      const client = new Client({ caFile: env.SLUICE_TEST_CA, http: '2' });
      return Array.from({ length: 20 }, (_, i) =>
        client.fetch(`${env.SLUICE_NGINX_H2_URL}/1m.bin?i=${i}`).then((r) => r.arrayBuffer()));
    })();
    // Collect while they run, often at first and then less (backoff.mjs), until all
    // have settled: a collection at any point of a fetch must be harmless.
    let settled = false;
    const all = Promise.allSettled(fetches).finally(() => { settled = true; });
    for (const pause of backoff()) {
      if (settled) break;
      global.gc();
      await Promise.race([all, pause()]);
    }
    for (const outcome of await all) {
      // Completing is what this design does; an error would be allowed, a crash not.
      if (outcome.status === 'rejected') {
        assert.ok(outcome.reason instanceof TypeError, String(outcome.reason));
      } else {
        assert.equal(sha256(new Uint8Array(outcome.value)), sha256Of('1m.bin'));
      }
    }
  });

test('a Client collected with unread responses in flight ends them, and the process exits', async () => {
  // In a child: a crash would be its exit code or signal, a hang its timeout.
  const { stdout } = await runChild(process.execPath, ['--expose-gc', collectScript,
    `${env.SLUICE_NGINX_HTTP_URL}/64m.bin`, `${env.SLUICE_NGINX_H2_URL}/64m.bin`, env.SLUICE_TEST_CA],
  { env: process.env, timeout: 60_000 });
  assert.equal(stdout.trim(), 'collected');
});
