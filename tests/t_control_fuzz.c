/* t_control_fuzz.c - a bounded fuzz run of the control endpoint's request
 * parser (include/edgeprobe.h section 9), in process, under the sanitizers.
 * Requests are built from the protocol's words, glob-like arguments and
 * random bytes, mutated, and fed in random chunks (partial lines). Checked:
 * no crash or sanitizer report; every reply line has a known form; a
 * request that is not "enable"/"disable" leaves every probe state as it was
 * (a trace is ended and must restore them); buffers stay in bounds.
 * Usage: t_control_fuzz [ITERATIONS] [SECONDS]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"

static int fz_work(int x) {
    EDGEPROBE_TRACE(fz_trace, "x=%d\n", x);
    EDGEPROBE_TRACE(fz_trace2, "y=%d\n", x);
    if (EDGEPROBE_BRANCH(fz_branch)) x++;
    EDGEPROBE_HANDLER(fz_handler, x);
    return x;
}

static unsigned long long rng = 88172645463325252ULL;
static unsigned rnd(unsigned n) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static const char *words[] = {"hello", "list", "enable", "disable", "trace", "stop", "bogus", "", "ENABLE", "list2"};
static const char *args[] = {"fz_*", "fz_trace", "fz_branch", "fz_handler", "nosuch", "[", "fz_[a-", "\\", "*",
                             "fz_trace*", "?", "fz_[!t]*", "[]]", "a\\*"};

/* One request (maybe several lines, maybe no newline) into buf. */
static size_t make_input(unsigned char *buf, size_t cap) {
    size_t n = 0;
    int k, nargs = (int)rnd(4);
    n += (size_t)snprintf((char *)buf, cap, "%s", words[rnd(sizeof words / sizeof *words)]);
    for (k = 0; k < nargs; k++) {
        const char *sep = rnd(8) ? " " : rnd(2) ? "  " : "\t";
        if (rnd(10) == 0) { /* a long argument */
            size_t len = 100 + rnd(500), i;
            n += (size_t)snprintf((char *)buf + n, cap - n, "%s", sep);
            for (i = 0; i < len && n + 2 < cap; i++) buf[n++] = 'a' + rnd(26);
        } else
            n += (size_t)snprintf((char *)buf + n, cap - n, "%s%s", sep, args[rnd(sizeof args / sizeof *args)]);
    }
    for (k = (int)rnd(3); k > 0 && n; k--) { /* mutations */
        switch (rnd(3)) {
        case 0: buf[rnd((unsigned)n)] = (unsigned char)rnd(256); break;
        case 1: n = rnd((unsigned)n + 1); break;
        default:
            if (n + 1 < cap) buf[n++] = (unsigned char)rnd(256);
        }
    }
    if (rnd(20) && n < cap) buf[n++] = '\n';
    return n;
}

static void states(int *out) {
    static const char *const names[] = {"fz_trace", "fz_trace2", "fz_branch", "fz_handler"};
    int i;
    for (i = 0; i < 4; i++) {
        edgeprobe_probe *p;
        out[i] = edgeprobe_probe_find(names[i], &p) == 0 ? edgeprobe_probe_is_on(p) : -1;
    }
}

/* Every line of the output has a form the protocol defines. */
static int replies_ok(const char *out, unsigned len) {
    unsigned i = 0;
    while (i < len) {
        const char *l = out + i;
        const char *nl = memchr(l, '\n', len - i);
        if (!nl) return 0;
        if (strncmp(l, "ok", 2) && strncmp(l, "error EDGEPROBE_", 16) && strncmp(l, "probe\t", 6) &&
            strncmp(l, "end", 3) && strncmp(l, "dropped ", 8) && strncmp(l, "> ", 2))
            return 0;
        i = (unsigned)(nl - out) + 1;
    }
    return 1;
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 200000, it;
    double seconds = argc > 2 ? atof(argv[2]) : 20;
    int err = 0, before[4], after[4], changed_ok = 0, traces = 0;
    time_t start = time(NULL);
    edgeprobe__root *r = edgeprobe__root_get(&err);
    struct edgeprobe__control *ctl = (struct edgeprobe__control *)calloc(1, sizeof *ctl);
    edgeprobe__client *c = &ctl->clients[0];
    CHECK(r && ctl);
    if (!r || !ctl) return check_done("t_control_fuzz");
    fz_work(1);
    ctl->tracer = -1;
    r->control = ctl; /* the parser's state, without a socket or a thread */
    for (it = 0; it < iterations && difftime(time(NULL), start) < seconds; it++) {
        unsigned char input[1200];
        size_t n = make_input(input, sizeof input), fed = 0;
        int is_toggle = !memcmp(input, "enable ", 7) || !memcmp(input, "disable ", 8);
        if (rnd(4) == 0) edgeprobe_enable(rnd(2) ? "fz_trace*" : "fz_branch"); /* vary the baseline */
        if (rnd(4) == 0) edgeprobe_disable("fz_*");
        states(before);
        c->state = EDGEPROBE__CLIENT_REQUEST;
        c->in_len = c->out_len = c->out_pos = 0;
        while (fed < n && c->state != EDGEPROBE__CLIENT_CLOSING) { /* random chunks, as read() delivers */
            size_t chunk = 1 + rnd((unsigned)(n - fed)), room = sizeof c->in - c->in_len;
            if (chunk > room) chunk = room;
            memcpy(c->in + c->in_len, input + fed, chunk);
            c->in_len += (unsigned)chunk;
            fed += chunk;
            edgeprobe__client_lines(r, ctl, 0);
            while (c->state == EDGEPROBE__CLIENT_LISTING) {
                edgeprobe__list_more(r, c);
                CHECK(c->out_len <= sizeof c->out && replies_ok(c->out, c->out_len));
                c->out_len = 0;
                edgeprobe__client_lines(r, ctl, 0);
            }
            if (c->state == EDGEPROBE__CLIENT_TRACING) { /* the client goes away: restore */
                traces++;
                fz_work(2);
                edgeprobe__trace_end(r, ctl, c);
                c->state = EDGEPROBE__CLIENT_REQUEST;
                c->out_len = 0;
            }
            CHECK(c->in_len <= sizeof c->in && c->out_len <= sizeof c->out);
            CHECK(replies_ok(c->out, c->out_len));
            if (c->out_len > sizeof c->out / 2) c->out_len = 0; /* the client read it */
        }
        states(after);
        if (is_toggle) changed_ok += memcmp(before, after, sizeof before) != 0;
        else if (memcmp(before, after, sizeof before)) {
            CHECK(!"a request that switches nothing changed a probe's state");
            fprintf(stderr, "input: %.*s\n", (int)n, (const char *)input);
        }
    }
    r->control = 0;
    free(ctl->ring);
    free(ctl->traced);
    free(ctl);
    printf("%ld requests, %d switched probes, %d trace sessions ended\n", it, changed_ok, traces);
    CHECK(it >= 1000 && changed_ok > 0 && traces > 0);
    return check_done("t_control_fuzz");
}
