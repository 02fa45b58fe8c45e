// Pumps a ReadableStream request body into the exchange's body writer. The next
// chunk is read from the stream only once the library can take more (the writer is
// below its mark), so a slow network holds back the stream's source: the stream is
// never read ahead of what the library's upload buffer allows.
import { addon } from './addon.mjs';

/** Runs until the body is sent or fails; a failure aborts the request (whose fetch
 * then rejects with the reason), and a request that failed first stops the pump. */
export async function pumpUpload(exchange, stream) {
  const reader = stream.getReader();
  try {
    for (;;) {
      await addon.whenWritable(exchange);
      const { value, done } = await reader.read();
      if (done) {
        addon.closeBody(exchange);
        return;
      }
      if (!(value instanceof Uint8Array)) {
        throw new TypeError('a request body stream must give Uint8Array chunks');
      }
      while (!addon.write(exchange, value)) await addon.whenWritable(exchange);
    }
  } catch (failure) {
    reader.cancel(failure).catch(() => {});
    try {
      addon.abortBody(exchange, String(failure?.message ?? failure));
    } catch {
      // the exchange is over already: it failed for its own reason
    }
  }
}
