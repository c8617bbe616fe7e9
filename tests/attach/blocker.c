/* A process whose main thread (the one `edgeprobe attach` seizes) blocks in
 * one system call, chosen by MODE; tests/drivers/attach.sh attaches while it
 * blocks, then writes a line to FIFO. A helper thread, blocked reading FIFO,
 * then makes the call complete (accept: connects; futex: stores 1 and
 * wakes; epoll: writes to the pipe the epoll set watches). The main thread
 * prints "MODE ok ..." when its call completed as it would have without the
 * attach, else "MODE FAILED ..." (EINTR, a short sleep, a lost wakeup).
 *     blocker MODE FIFO      MODE: accept nanosleep futex epoll
 * "ready SYSCALL" is printed just before the call: SYSCALL is the number
 * /proc/PID/syscall shows while the main thread is inside it. The calls are
 * made with syscall(2) (futex: no libc loop retries behind our back) or the
 * libc wrapper whose number is printed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SLEEP_SECONDS 4 /* tests/drivers/attach.sh holds the thread 2 s of them */

static int listener, pipe_fds[2], fifo_fd;
static unsigned port;
static int futex_word;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}
static void ready(long nr) {
    printf("ready %ld\n", nr);
    fflush(stdout);
}

/* The helper: waits for the driver's line, then completes the main call. */
static void *completer(void *mode) {
    char line[16];
    if (read(fifo_fd, line, sizeof line) <= 0) return 0;
    if (!strcmp(mode, "accept")) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(0x7f000001)};
        int s = socket(AF_INET, SOCK_STREAM, 0);
        if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) || write(s, "x", 1) != 1) perror("connect");
    } else if (!strcmp(mode, "futex")) {
        __atomic_store_n(&futex_word, 1, __ATOMIC_RELEASE);
        syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
    } else if (!strcmp(mode, "epoll")) {
        if (write(pipe_fds[1], "e", 1) != 1) perror("write");
    }
    return 0;
}

static int listen_loopback(void) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
    socklen_t n = sizeof a;
    if ((listener = socket(AF_INET, SOCK_STREAM, 0)) < 0 || bind(listener, (struct sockaddr *)&a, sizeof a) ||
        listen(listener, 1) || getsockname(listener, (struct sockaddr *)&a, &n))
        return -1;
    port = ntohs(a.sin_port);
    return 0;
}
/* Each returns 0 when the call completed as it would have unattached. */
static int block_in_accept(void) {
    char c = 0;
    int fd;
    if (listen_loopback()) return perror("listen"), -1;
    ready(SYS_accept);
    fd = accept(listener, 0, 0);
    if (fd < 0 || read(fd, &c, 1) != 1 || c != 'x') return printf("accept FAILED: fd %d errno %d\n", fd, errno), -1;
    return printf("accept ok: the connection made after the attach\n"), 0;
}
static int block_in_nanosleep(void) {
    struct timespec t = {SLEEP_SECONDS, 0};
    double t0 = now_s(), slept;
    int rc;
    ready(SYS_clock_nanosleep); /* glibc's nanosleep */
    rc = nanosleep(&t, 0);
    slept = now_s() - t0;
    /* the whole time, and not a second round of it after the attach held it
     * (restart_syscall keeps the deadline) */
    if (rc || slept < SLEEP_SECONDS || slept > SLEEP_SECONDS + 1.5)
        return printf("nanosleep FAILED: rc %d errno %d slept %.3f s\n", rc, rc ? errno : 0, slept), -1;
    return printf("nanosleep ok: slept %.3f s of %d\n", slept, SLEEP_SECONDS), 0;
}
static int block_in_futex(void) {
    long rc;
    ready(SYS_futex);
    rc = syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0);
    if (rc || __atomic_load_n(&futex_word, __ATOMIC_ACQUIRE) != 1)
        return printf("futex FAILED: rc %ld errno %d word %d\n", rc, rc ? errno : 0, futex_word), -1;
    return printf("futex ok: woken by the wake\n"), 0;
}
static int block_in_epoll(void) {
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 42}, got = {0};
    int ep = epoll_create1(0), n;
    if (ep < 0 || pipe(pipe_fds) || epoll_ctl(ep, EPOLL_CTL_ADD, pipe_fds[0], &ev)) return perror("epoll"), -1;
    ready(SYS_epoll_wait);
    n = epoll_wait(ep, &got, 1, -1);
    if (n != 1 || got.data.u64 != 42) return printf("epoll FAILED: n %d errno %d\n", n, n < 0 ? errno : 0), -1;
    return printf("epoll ok: the event\n"), 0;
}

int main(int argc, char **argv) {
    pthread_t t;
    const char *mode = argc == 3 ? argv[1] : "";
    int (*block)(void) = !strcmp(mode, "accept")      ? block_in_accept
                         : !strcmp(mode, "nanosleep") ? block_in_nanosleep
                         : !strcmp(mode, "futex")     ? block_in_futex
                         : !strcmp(mode, "epoll")     ? block_in_epoll
                                                      : 0;
    if (!block) return fprintf(stderr, "usage: blocker accept|nanosleep|futex|epoll FIFO\n"), 2;
    if ((fifo_fd = open(argv[2], O_RDWR)) < 0) return perror(argv[2]), 2; /* O_RDWR: no wait for a writer */
    if (pthread_create(&t, 0, completer, (void *)mode)) return 2;
    return block() ? 1 : 0;
}
