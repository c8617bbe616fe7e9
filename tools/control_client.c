/* tools/control_client.c - the client side of the control protocol
 * (include/edgeprobe.h, >>control): find a process's socket, send requests,
 * read reply lines with a timeout. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "edgeprobe.h" /* the socket directory rule (EDGEPROBE_CONTROL_DIR_*) */

int ctl_is_pid(const char *s) {
    const char *p = s;
    if (!*p) return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return p - s < 10 && atoi(s) > 0;
}

static int add_dir(char dirs[][256], int n, int max, const char *dir) {
    int i;
    if (n >= max || strlen(dir) >= 256) return n;
    for (i = 0; i < n; i++)
        if (!strcmp(dirs[i], dir)) return n;
    strcpy(dirs[n], dir);
    return n + 1;
}
/* Where processes put their sockets: the header's rule, EDGEPROBE_CONTROL_DIR_XDG
 * under $XDG_RUNTIME_DIR when that is set, else EDGEPROBE_CONTROL_DIR_TMP.
 * The command may run with another
 * environment (sudo, tmux), so look in both and in /run/user/EUID; root
 * also looks in every user's directory. */
int ctl_dirs(char dirs[][256], int max) {
    char dir[300];
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int n = 0;
    char run_user[64];
    if (xdg && xdg[0] == '/') {
        snprintf(dir, sizeof dir, EDGEPROBE_CONTROL_DIR_XDG, xdg);
        n = add_dir(dirs, n, max, dir);
    }
    snprintf(run_user, sizeof run_user, "/run/user/%u", geteuid()); /* the usual XDG_RUNTIME_DIR */
    snprintf(dir, sizeof dir, EDGEPROBE_CONTROL_DIR_XDG, run_user);
    n = add_dir(dirs, n, max, dir);
    snprintf(dir, sizeof dir, EDGEPROBE_CONTROL_DIR_TMP, geteuid());
    n = add_dir(dirs, n, max, dir);
    if (geteuid() == 0) {
        DIR *d = opendir("/tmp");
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (!strncmp(e->d_name, "edgeprobe-", 10)) {
                snprintf(dir, sizeof dir, "/tmp/%s", e->d_name);
                n = add_dir(dirs, n, max, dir);
            }
        if (d) closedir(d);
        d = opendir("/run/user");
        while (d && (e = readdir(d)))
            if (e->d_name[0] != '.') {
                snprintf(dir, sizeof dir, "/run/user/%s/edgeprobe", e->d_name);
                n = add_dir(dirs, n, max, dir);
            }
        if (d) closedir(d);
    }
    return n;
}

static int find_socket(int pid, char *path, size_t cap) {
    char dirs[64][256];
    int i, n = ctl_dirs(dirs, 64);
    struct stat st;
    for (i = 0; i < n; i++) {
        if (snprintf(path, cap, EDGEPROBE_CONTROL_SOCKET, dirs[i], pid) < (int)cap && !stat(path, &st) && S_ISSOCK(st.st_mode))
            return 0;
    }
    return -1;
}

int ctl_open(const char *target, ctl_conn *c) {
    struct sockaddr_un addr;
    struct stat st;
    const char *reply;
    memset(c, 0, sizeof *c - sizeof c->buf);
    c->fd = -1;
    if (ctl_is_pid(target)) {
        c->pid = atoi(target);
        if (find_socket(c->pid, c->path, sizeof c->path)) {
            fprintf(stderr, "edgeprobe: process %d has no control endpoint that this user can reach (is it running "
                            "with EDGEPROBE_CONTROL=1, or has it called edgeprobe_control_start()?)\n", c->pid);
            return -1;
        }
    } else if (!stat(target, &st) && S_ISSOCK(st.st_mode) && strlen(target) < sizeof c->path) {
        strcpy(c->path, target);
    } else {
        fprintf(stderr, "edgeprobe: '%s' is neither a process id nor a control socket\n", target);
        return -1;
    }
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    strcpy(addr.sun_path, c->path);
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&addr, sizeof addr)) {
        int e = errno;
        fprintf(stderr, "edgeprobe: cannot connect to %s: %s%s\n", c->path, strerror(e),
                e == ECONNREFUSED ? " (the process is gone; 'edgeprobe ps' removes its socket)" : "");
        ctl_close(c);
        return -1;
    }
    /* Handshake: a refused client reads the reason here (the process sends
     * it and closes; our request may then fail with EPIPE, the reply is
     * still readable). The reply also names the pid behind a socket path. */
    (void)send(c->fd, "hello\n", 6, MSG_NOSIGNAL);
    if (!(reply = ctl_expect_ok(c, "connect")) || strncmp(reply, "edgeprobe-control 1 ", 20)) {
        if (reply) fprintf(stderr, "edgeprobe: %s does not speak the edgeprobe control protocol 1\n", c->path);
        ctl_close(c);
        return -1;
    }
    c->pid = atoi(reply + 20);
    return 0;
}

void ctl_close(ctl_conn *c) {
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
}

ctl_conn *ctl_connect(const char *target) {
    ctl_conn *c = malloc(sizeof *c);
    if (!c) {
        fprintf(stderr, "edgeprobe: out of memory\n");
        return NULL;
    }
    if (ctl_open(target, c)) {
        free(c);
        return NULL;
    }
    return c;
}
void ctl_disconnect(ctl_conn *c) {
    if (!c) return;
    ctl_close(c);
    free(c);
}

int ctl_send(ctl_conn *c, const char *request) {
    char line[600];
    size_t len = (size_t)snprintf(line, sizeof line, "%s\n", request), done = 0;
    if (len >= sizeof line) {
        fprintf(stderr, "edgeprobe: request too long\n");
        return -1;
    }
    while (done < len) {
        ssize_t n = send(c->fd, line + done, len - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fprintf(stderr, "edgeprobe: lost the connection to %s: %s\n", c->path, strerror(errno));
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

int ctl_line(ctl_conn *c, char **line, int timeout_ms) {
    for (;;) {
        char *nl = memchr(c->buf + c->pos, '\n', c->len - c->pos);
        struct pollfd p = {c->fd, POLLIN, 0};
        ssize_t n;
        if (nl) {
            *nl = 0;
            *line = c->buf + c->pos;
            c->pos = (size_t)(nl - c->buf) + 1;
            return 1;
        }
        if (c->pos) { /* keep the partial line at the front */
            memmove(c->buf, c->buf + c->pos, c->len - c->pos);
            c->len -= c->pos;
            c->pos = 0;
        }
        if (c->len == sizeof c->buf) return -1; /* a line longer than the buffer */
        n = poll(&p, 1, timeout_ms);
        if (n < 0 && errno == EINTR) return -1;
        if (n == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (n < 0 && errno == EINTR) return -1;
        if (n <= 0) return n == 0 ? 0 : -1;
        c->len += (size_t)n;
    }
}

int ctl_reachable(int pid) {
    char path[300];
    return find_socket(pid, path, sizeof path) == 0 && kill(pid, 0) == 0;
}

const char *ctl_expect_ok(ctl_conn *c, const char *command) { return ctl_expect_ok_within(c, command, CTL_TIMEOUT_MS); }
const char *ctl_expect_ok_within(ctl_conn *c, const char *command, int timeout_ms) {
    char *line;
    int rc = ctl_line(c, &line, timeout_ms);
    if (rc <= 0) {
        fprintf(stderr, "edgeprobe %s: no reply from %s: %s\n", command, c->path,
                rc == 0 ? "connection closed" : strerror(errno));
        return NULL;
    }
    if (!strncmp(line, "ok", 2) && (line[2] == ' ' || !line[2])) return line + 2 + (line[2] == ' ');
    if (!strncmp(line, "error ", 6)) fprintf(stderr, "edgeprobe %s: %s\n", command, line + 6);
    else fprintf(stderr, "edgeprobe %s: unexpected reply: %s\n", command, line);
    return NULL;
}

/* probe ID KIND STATE HITS SITES NAME FILE LINE FUNCTION, tab-separated. */
static int parse_probe(char *line, ctl_probe *p) {
    char *f[10];
    int n = 0;
    char *s = line;
    while (n < 10) {
        f[n++] = s;
        s = strchr(s, '\t');
        if (!s) break;
        *s++ = 0;
    }
    if (n != 10 || strcmp(f[0], "probe")) return -1;
    memset(p, 0, sizeof *p);
    p->id = atoi(f[1]);
    snprintf(p->kind, sizeof p->kind, "%s", f[2]);
    p->on = !strcmp(f[3], "on");
    p->hits = strtoull(f[4], NULL, 10);
    p->sites = atoi(f[5]);
    snprintf(p->name, sizeof p->name, "%s", f[6]);
    snprintf(p->file, sizeof p->file, "%s", f[7]);
    p->line = atoi(f[8]);
    snprintf(p->function, sizeof p->function, "%s", f[9]);
    return 0;
}

int ctl_list(ctl_conn *c, ctl_probe **out, int *n) {
    int cap = 0, rc;
    char *line;
    *out = NULL;
    *n = 0;
    if (ctl_send(c, "list")) return -1;
    while ((rc = ctl_line(c, &line, CTL_TIMEOUT_MS)) > 0) {
        if (!strncmp(line, "end ", 4)) return 0;
        if (!strncmp(line, "error ", 6)) {
            fprintf(stderr, "edgeprobe list: %s\n", line + 6);
            return -1;
        }
        if (*n == cap) {
            ctl_probe *more = realloc(*out, (size_t)(cap = cap ? 2 * cap : 64) * sizeof **out);
            if (!more) return -1;
            *out = more;
        }
        if (parse_probe(line, &(*out)[*n])) {
            fprintf(stderr, "edgeprobe list: unexpected reply: %s\n", line);
            return -1;
        }
        (*n)++;
    }
    fprintf(stderr, "edgeprobe list: %s before the end of the list\n", rc == 0 ? "connection closed" : strerror(errno));
    return -1;
}

int ctl_help(int argc, char **argv, const char *usage) {
    int i;
    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: edgeprobe %s\n", usage);
            return 1;
        }
    return 0;
}

void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
        else if (ch < 0x20) fprintf(out, "\\u%04x", ch);
        else fputc(ch, out);
    }
    fputc('"', out);
}

volatile sig_atomic_t ctl_stop_requested;
static void on_stop_signal(int sig) {
    (void)sig;
    ctl_stop_requested = 1;
}
void ctl_catch_stop_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}
double ctl_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

const char *ctl_where(const ctl_probe *p, char *buf, size_t n) {
    if (p->line > 0) snprintf(buf, n, "%s:%d", p->file, p->line);
    else snprintf(buf, n, "%s", p->file[0] ? p->file : "-");
    return buf;
}

void ctl_wait(double seconds) {
    double end = ctl_now() + seconds;
    struct timespec slice = {0, 50 * 1000 * 1000};
    ctl_catch_stop_signals();
    while (!ctl_stop_requested && ctl_now() < end) nanosleep(&slice, 0);
}
