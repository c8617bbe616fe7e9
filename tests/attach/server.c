/* A loopback server that never opted in: built with
 * -fpatchable-function-entry=5, without edgeprobe.h. Its main thread blocks
 * in accept() (the thread `edgeprobe attach` seizes); each connection gets
 * a thread that answers lines "N" with "checksum(N)". tests/attach/client.c
 * checks every answer.
 *     server PORTFILE     writes the port it listens on, then serves */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "protocol.h"

__attribute__((noinline)) long parse_request(const char *line) { return strtol(line, 0, 10); }
__attribute__((noinline)) int format_reply(char *out, size_t n, unsigned long value) {
    return snprintf(out, n, "%lu\n", value);
}
/* One request: parse, compute, format. */
__attribute__((noinline)) int handle_request(const char *line, char *out, size_t n) {
    return format_reply(out, n, request_checksum((unsigned long)parse_request(line)));
}
static void *serve_connection(void *arg) {
    int fd = (int)(long)arg;
    char in[256], out[64];
    size_t have = 0;
    for (;;) {
        char *nl;
        ssize_t got = read(fd, in + have, sizeof in - 1 - have);
        if (got <= 0) break;
        have += (size_t)got;
        in[have] = 0;
        while ((nl = strchr(in, '\n'))) {
            int len;
            *nl = 0;
            len = handle_request(in, out, sizeof out);
            if (write(fd, out, (size_t)len) != len) goto done;
            have -= (size_t)(nl + 1 - in);
            memmove(in, nl + 1, have + 1);
        }
        if (have == sizeof in - 1) break; /* no newline: a broken client */
    }
done:
    close(fd);
    return 0;
}
int main(int argc, char **argv) {
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);
    FILE *f;
    if (argc != 2 || ls < 0) return 2;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 16) || getsockname(ls, (struct sockaddr *)&a, &len))
        return 2;
    if (!(f = fopen(argv[1], "w"))) return 2;
    fprintf(f, "%d\n", ntohs(a.sin_port));
    fclose(f);
    for (;;) { /* the main thread waits in accept: the one attach seizes */
        pthread_t t;
        int fd = accept(ls, 0, 0);
        if (fd < 0) continue;
        if (pthread_create(&t, 0, serve_connection, (void *)(long)fd)) close(fd);
        else pthread_detach(t);
    }
}
