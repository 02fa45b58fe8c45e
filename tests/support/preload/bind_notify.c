/* An LD_PRELOAD shim for tests that spawn a server of someone else's (gtlsserver):
   after each bind() that succeeds, it writes one byte to the file descriptor named
   by SLUICE_BIND_NOTIFY_FD, so the test learns the moment the server's socket is
   bound instead of polling for it. Built without sanitizers: it is loaded into a
   program that has none. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*bind_function)(int, const struct sockaddr*, socklen_t);

int bind(int fd, const struct sockaddr* address, socklen_t length) {
  static bind_function real_bind = NULL;
  if (real_bind == NULL) real_bind = (bind_function)dlsym(RTLD_NEXT, "bind");
  const int rv = real_bind(fd, address, length);
  const char* notify = getenv("SLUICE_BIND_NOTIFY_FD");
  if (rv == 0 && notify != NULL) {
    const char bound = 'b';
    if (write(atoi(notify), &bound, 1) < 0) {
      /* The test stopped listening; nothing to tell. */
    }
  }
  return rv;
}
