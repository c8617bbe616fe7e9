/* What tests/attach/server.c computes and tests/attach/client.c checks. */
#ifndef ATTACH_PROTOCOL_H
#define ATTACH_PROTOCOL_H
/* A few hundred cycles of work per request. */
__attribute__((noinline)) static unsigned long request_checksum(unsigned long n) {
    unsigned long h = 1469598103934665603ul;
    int i;
    for (i = 0; i < 64; i++) h = (h ^ (n + (unsigned long)i)) * 1099511628211ul;
    return h;
}
#endif
