// Finds and loads the addon (sluice_node.node): $SLUICE_NODE_ADDON when set (ctest
// sets it to the build's file), else the first build tree of this source tree that
// has one (build-node, build, build-release: CMake writes it to
// BUILD/bindings/node/sluice_node.node, with an RPATH to libsluice.so there).
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const sourceRoot = path.resolve(here, '..', '..', '..');
const buildDirs = ['build-node', 'build', 'build-release'];

function addonPath() {
  const fromEnv = process.env.SLUICE_NODE_ADDON;
  if (fromEnv) return path.resolve(fromEnv);  // relative to where node runs
  const besidePackage = path.join(here, '..', 'sluice_node.node');
  if (existsSync(besidePackage)) return besidePackage;
  for (const dir of buildDirs) {
    const candidate = path.join(sourceRoot, dir, 'bindings', 'node', 'sluice_node.node');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('sluice: the addon sluice_node.node was not found: build it ' +
    '(cmake --build BUILD --target sluice_node) and set SLUICE_NODE_ADDON to its path');
}

export const addon = createRequire(import.meta.url)(addonPath());
