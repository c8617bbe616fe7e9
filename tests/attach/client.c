/* The load for tests/attach/server.c: CONNS connections over loopback, each
 * sending one request at a time and checking the answer, until STOPFILE
 * exists (or 600 s pass). Prints "requests R errors E" and exits 1 if any
 * answer was wrong, late (5 s) or a connection failed. With LOG, appends
 * "<CLOCK_MONOTONIC ms> <requests so far>" to it every 50 ms (for
 * bench/attach_prof.sh).
 *     client PORT CONNS STOPFILE [LOG] */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"

#define MAX_CONNS 8
static int connect_to(int port) {
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) return -1;
    return fd;
}
/* One request and its answer; 0 when right. */
static int exchange(int fd, unsigned long n) {
    char req[32], ans[64];
    size_t have = 0;
    int len = snprintf(req, sizeof req, "%lu\n", n);
    if (write(fd, req, (size_t)len) != len) return -1;
    while (!memchr(ans, '\n', have)) {
        struct pollfd p = {fd, POLLIN, 0};
        ssize_t got;
        if (have == sizeof ans - 1 || poll(&p, 1, 5000) != 1 || (got = read(fd, ans + have, sizeof ans - 1 - have)) <= 0)
            return -1;
        have += (size_t)got;
    }
    ans[have] = 0;
    return strtoul(ans, 0, 10) == request_checksum(n) ? 0 : -1;
}
static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
int main(int argc, char **argv) {
    int fds[MAX_CONNS], conns, i;
    unsigned long requests = 0, errors = 0;
    time_t start = time(0);
    FILE *log = argc == 5 ? fopen(argv[4], "w") : 0;
    double logged = 0;
    if (argc < 4 || argc > 5 || (conns = atoi(argv[2])) < 1 || conns > MAX_CONNS) return 2;
    for (i = 0; i < conns; i++)
        if ((fds[i] = connect_to(atoi(argv[1]))) < 0) {
            printf("requests 0 errors 1 (cannot connect)\n");
            return 1;
        }
    while (access(argv[3], F_OK) != 0 && time(0) - start < 600) {
        for (i = 0; i < conns; i++, requests++) errors += exchange(fds[i], requests) != 0;
        if (log && now_ms() - logged >= 50) {
            logged = now_ms();
            fprintf(log, "%.1f %lu\n", logged, requests);
            fflush(log);
        }
    }
    printf("requests %lu errors %lu\n", requests, errors);
    return errors != 0;
}
