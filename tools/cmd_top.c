/* edgeprobe top PID [--once] [-i SECONDS] - live hits per second per probe.
 * Interactive: refreshes every interval until 'q' or Ctrl-C (the terminal
 * is put back). --once: one sample over one interval, printed for scripts. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "tool.h"


typedef struct sample {
    ctl_probe *probes;
    int n;
    double when;
} sample;
typedef struct row {
    const ctl_probe *p;
    double rate;
} row;

static int take(ctl_conn *c, sample *s) {
    free(s->probes);
    s->when = ctl_now();
    return ctl_list(c, &s->probes, &s->n);
}
static int by_rate(const void *a, const void *b) {
    const row *x = a, *y = b;
    if (x->rate != y->rate) return x->rate < y->rate ? 1 : -1;
    return x->p->hits < y->p->hits ? 1 : x->p->hits > y->p->hits ? -1 : x->p->id - y->p->id;
}
/* Rates of `now` against `before` (ids are stable for the process). */
static void show(const sample *before, const sample *now, int pid, int max_rows, int screen) {
    row *rows = calloc((size_t)now->n + 1, sizeof *rows);
    double dt = now->when - before->when;
    char where[540];
    int i, j = 0;
    if (!rows) return;
    for (i = 0; i < now->n; i++) {
        unsigned long long prev = 0;
        for (; j < before->n && before->probes[j].id < now->probes[i].id; j++) {}
        if (j < before->n && before->probes[j].id == now->probes[i].id) prev = before->probes[j].hits;
        rows[i].p = &now->probes[i];
        rows[i].rate = dt > 0 && now->probes[i].hits >= prev ? (now->probes[i].hits - prev) / dt : 0;
    }
    qsort(rows, (size_t)now->n, sizeof *rows, by_rate);
    if (screen) printf("\033[H\033[J");
    printf("edgeprobe top - pid %d - %d probes - %.1f s sample%s\n", pid, now->n, dt, screen ? " - q quits" : "");
    printf("%12s %14s %-5s %-9s %-24s %s\n", "HITS/S", "HITS", "STATE", "KIND", "NAME", "FILE:LINE");
    for (i = 0; i < now->n && (max_rows <= 0 || i < max_rows); i++)
        printf("%12.0f %14llu %-5s %-9s %-24s %s\n", rows[i].rate, rows[i].p->hits, rows[i].p->on ? "on" : "off",
               rows[i].p->kind, rows[i].p->name, ctl_where(rows[i].p, where, sizeof where));
    fflush(stdout);
    free(rows);
}
/* Wait one interval; 1 if the user asked to quit. */
static int wait_or_quit(double seconds, int keys) {
    double end = ctl_now() + seconds;
    while (!ctl_stop_requested) {
        double left = end - ctl_now();
        struct pollfd p = {0, POLLIN, 0};
        char ch;
        if (left <= 0) return 0;
        if (poll(&p, keys ? 1 : 0, (int)(left * 1000) + 1) > 0 && read(0, &ch, 1) == 1 && (ch == 'q' || ch == 'Q'))
            return 1;
    }
    return 1;
}

int cmd_top(int argc, char **argv) {
    const char *target = NULL;
    double interval = 1.0;
    int once = 0, i, rc = 0, keys, rows = 0;
    sample a = {0}, b = {0};
    struct termios saved, raw;
    struct winsize ws;
    ctl_conn *c;
    if (ctl_help(argc, argv, USAGE_TOP)) return 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--once")) once = 1;
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) interval = atof(argv[++i]);
        else if (!target) target = argv[i];
        else target = "", i = argc;
    }
    if (!target || !*target || interval < 0.05 || interval > 3600) {
        fprintf(stderr, "usage: edgeprobe " USAGE_TOP "\n");
        return TOOL_EXIT_USAGE;
    }
    if (!(c = ctl_connect(target))) return 1;
    ctl_catch_stop_signals();
    keys = !once && isatty(0) && !tcgetattr(0, &saved);
    if (keys) { /* single keys, no echo; restored below */
        raw = saved;
        raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        tcsetattr(0, TCSANOW, &raw);
    }
    if (!once && isatty(1) && !ioctl(1, TIOCGWINSZ, &ws) && ws.ws_row > 4) rows = ws.ws_row - 3;
    if (take(c, &a)) rc = 1;
    while (!rc) {
        sample t;
        if (wait_or_quit(interval, keys)) break;
        if (take(c, &b)) rc = 1;
        else show(&a, &b, c->pid, rows, !once && isatty(1));
        t = a, a = b, b = t;
        if (once) break;
    }
    if (keys) tcsetattr(0, TCSANOW, &saved);
    free(a.probes);
    free(b.probes);
    ctl_disconnect(c);
    return rc;
}
