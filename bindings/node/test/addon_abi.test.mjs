// The addon holds V8 objects (an ArrayBuffer's BackingStore), so it runs only in the
// Node.js major whose headers built it. A copy built to claim Node.js 1
// (node_addon.cmake: sluice_node_other_major) must be refused at load with an error
// that says what to rebuild, not loaded to crash later.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';

const addonPath = process.env.SLUICE_NODE_ADDON;
const otherMajor = addonPath && path.join(path.dirname(path.resolve(addonPath)),
  'sluice_node_other_major.node');

test('an addon built for another Node.js major refuses to load, and says so', () => {
  assert.ok(existsSync(otherMajor), `${otherMajor} is not built (a test build makes it)`);
  const load = () => createRequire(import.meta.url)(otherMajor);
  assert.throws(load, (error) => {
    assert.match(error.message, /built with the headers of Node\.js 1 and this is Node\.js \d+\./);
    assert.match(error.message, /rebuild the addon/);
    return true;
  });
});

test('the addon built for this Node.js loads', () => {
  const addon = createRequire(import.meta.url)(path.resolve(addonPath));
  assert.equal(typeof addon.version(), 'string');
});
