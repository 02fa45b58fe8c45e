// Pumps a ReadableStream request body into the exchange's body writer. The next
// chunk is read from the stream only once the library can take more (the writer is
// below its mark), so a slow network holds back the stream's source: the stream is
// never read ahead of what the library's upload buffer allows.
//
// A chunk larger than the mark goes in pieces of at most the mark, each once the
// writer has room: a write copies its bytes into the library, and a Blob's stream
// gives each of its parts as one chunk (an 8 MiB part is one 8 MiB chunk), which
// written whole would put all of it in the library's queue at once.
import { addon } from './addon.mjs';

// Pieces no smaller than this, whatever the mark: fewer calls for a tiny mark.
const smallestPiece = 16 * 1024;

/** Writes `chunk` a piece at a time, each once the writer has room. The chunk is
 * read while its pieces go: one the script detaches meanwhile (its bytes are gone
 * from here) fails the body rather than sending it short. */
async function writeInPieces(exchange, chunk, pieceSize) {
  const total = chunk.length;
  for (let at = 0; at < total;) {
    if (chunk.length !== total) {
      throw new TypeError('a request body chunk was detached while it was being sent');
    }
    const piece = total <= pieceSize ? chunk : chunk.subarray(at, at + pieceSize);
    if (addon.write(exchange, piece)) {
      at += pieceSize;
    } else {
      await addon.whenWritable(exchange);
    }
  }
}

/** Runs until the body is sent or fails; a failure aborts the request (whose fetch
 * then rejects with the reason), and a request that failed first stops the pump.
 * `mark`: the writer's mark (the client's uploadBuffer). */
export async function pumpUpload(exchange, stream, mark) {
  const pieceSize = Math.max(mark, smallestPiece);
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
      await writeInPieces(exchange, value, pieceSize);
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
