// Client: one sluice client (its own HTTP thread, pool and options), driven by the
// Node loop; fetch() through it is WHATWG fetch.
import { addon } from './addon.mjs';
import { fetchWith } from './fetch.mjs';

const versions = { 'auto': 0, '1.1': 1, '2': 2, '2-prior-knowledge': 3, '3': 4, '3-only': 5 };
const ownKeys = new Set(['http', 'timeouts', 'timeout', 'allowance', 'decompress', 'maxRedirects',
  'uploadBuffer', 'maxBodySize', 'tlsMinVersion', 'tlsMaxVersion', 'ipVersion']);

const snakeCase = (name) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

function settingsOf(options) {
  const http = options.http ?? 'auto';
  if (!(http in versions)) {
    throw new TypeError(`Client option http must be one of ${Object.keys(versions).join(', ')}`);
  }
  let timeouts = options.timeouts;
  if (options.timeout !== undefined) timeouts = { ...timeouts, total: options.timeout };
  const allowance = options.allowance === undefined ? undefined
    : Array.isArray(options.allowance) ? options.allowance : [options.allowance, options.allowance];
  return {
    version: versions[http],
    timeouts,
    allowance,
    decompress: options.decompress ?? true,
    maxRedirects: options.maxRedirects ?? 20,
    uploadBuffer: options.uploadBuffer ?? 256 * 1024,
    maxBodySize: options.maxBodySize,
  };
}

/** The library's own options, by their names in its option table (camelCase here). */
function libraryOptions(options) {
  const table = {};
  for (const [key, value] of Object.entries(options)) {
    if (!ownKeys.has(key)) table[snakeCase(key)] = value;
  }
  if (options.tlsMinVersion !== undefined) table.tls_min_version = options.tlsMinVersion;
  if (options.tlsMaxVersion !== undefined) table.tls_max_version = options.tlsMaxVersion;
  if (options.ipVersion !== undefined) table.ip_version = options.ipVersion;
  return table;
}

export class Client {
  #handle;
  #settings;

  /**
   * `options`:
   *  - http: 'auto' (ALPN: h2 or h1 over TLS, h1 on plain TCP, h3 once announced),
   *    '1.1', '2', '2-prior-knowledge', '3' (HTTP/3 first, TCP if QUIC fails), '3-only'
   *  - timeouts: { connect, tls, firstByte, idle, total } in ms; timeout: total in ms
   *  - allowance: bytes an unread response may hold, or [initial, max] (the library's
   *    default: 64 KiB growing to 32 MiB while the reader keeps up)
   *  - decompress (true), maxRedirects (20), uploadBuffer (256 KiB: what a streamed
   *    body may run ahead of the network), maxBodySize
   *  - tlsMinVersion / tlsMaxVersion ('1.2', '1.3'), ipVersion (4 or 6)
   *  - every option of the library's table in camelCase: caFile, caPath, insecure,
   *    proxy, proxyUser, noProxy, proxyInsecure, userAgent, resolve, connectTo,
   *    unixSocket, dnsServers, poolIdleTimeout (ms), maxConnectionsPerOrigin,
   *    stagedBytesBudget ... (sluice.h lists them).
   */
  constructor(options = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('Client options must be an object');
    }
    this.#settings = settingsOf(options);
    this.#handle = addon.clientNew(libraryOptions(options));
  }

  /** WHATWG fetch through this client. */
  fetch(input, init = undefined) {
    return fetchWith(this, this.#handle, this.#settings, input, init);
  }

  /** What the client holds now: inFlight, stagedBytes, allowanceBytes, connections ... */
  stats() {
    return addon.clientStats(this.#handle);
  }

  /** Ends what is in flight (fetches reject, bodies fail) and frees the client. */
  close() {
    addon.clientClose(this.#handle);
  }
}
