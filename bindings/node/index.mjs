// sluice for Node.js: WHATWG fetch() over the sluice library (HTTP/1.1, HTTP/2,
// HTTP/3), with backpressure from the reader to the network. `fetch` uses a default
// Client made when first needed; `new Client(options)` sets sluice's own knobs.
import { addon } from './lib/addon.mjs';
import { Client } from './lib/client.mjs';

export { Client } from './lib/client.mjs';
export {
  SluiceError, DnsError, ConnectError, TlsError, ProtocolError, TimeoutError, CancelledError,
  TooLargeError, DecodeError, LocalIOError, UsageError, HttpError,
} from './lib/errors.mjs';

let defaultClient;

/** WHATWG fetch through the default Client. */
export function fetch(input, init = undefined) {
  defaultClient ??= new Client();
  return defaultClient.fetch(input, init);
}

/** The version of the loaded libsluice. */
export const libraryVersion = addon.version();
