/* cut_write.c - preloaded into a recorded program (test record-cut-write):
 * the program is killed in the middle of its recorder's write to the
 * trace file, as a signal may end it. The CUT_WRITE_AT-th write of 4 KiB
 * or more to a file whose name ends in ".trace" writes half of its bytes,
 * then the process kills itself (SIGKILL). Only in the recorded program
 * (EDGEPROBE_RECORD set): the command that reads the file is left alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static int big_writes;
static int to_trace(int fd, size_t len) {
    char link[64], path[4096];
    ssize_t n;
    if (len < 4096 || !getenv("EDGEPROBE_RECORD")) return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    if ((n = readlink(link, path, sizeof path - 1)) < 7) return 0;
    path[n] = 0;
    return !strcmp(path + n - 6, ".trace") && ++big_writes >= atoi(getenv("CUT_WRITE_AT") ? getenv("CUT_WRITE_AT") : "3");
}
ssize_t write(int fd, const void *buf, size_t len) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (to_trace(fd, len)) {
        real(fd, buf, len / 2);
        kill(getpid(), SIGKILL);
    }
    return real(fd, buf, len);
}
ssize_t writev(int fd, const struct iovec *iov, int n) {
    static ssize_t (*real)(int, const struct iovec *, int);
    size_t len = 0;
    int i;
    if (!real) real = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    for (i = 0; i < n; i++) len += iov[i].iov_len;
    if (to_trace(fd, len)) {
        write(fd, iov[0].iov_base, iov[0].iov_len); /* the block's head, then half of the rest */
        if (n > 1) write(fd, iov[1].iov_base, iov[1].iov_len / 2);
        kill(getpid(), SIGKILL);
    }
    return real(fd, iov, n);
}
