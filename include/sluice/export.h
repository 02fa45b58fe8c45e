#ifndef SLUICE_EXPORT_H
#define SLUICE_EXPORT_H
/* What libsluice.so exports. The library is compiled with hidden visibility, so only
   declarations marked SLUICE_API are visible outside it: the C API of sluice.h and
   the classes and functions of the public C++ headers. Everything else (the protocol
   layers, the HTTP thread's types, the bundled llhttp) stays inside, so a program
   cannot come to depend on an internal class. SLUICE_INTERNAL keeps a member of an
   exported class inside (a nested class inherits its enclosing class's visibility).
   Other compilers, and static linking, need neither. */
#if defined(__GNUC__) || defined(__clang__)
#define SLUICE_API __attribute__((visibility("default")))
#define SLUICE_INTERNAL __attribute__((visibility("hidden")))
#else
#define SLUICE_API
#define SLUICE_INTERNAL
#endif
#endif
