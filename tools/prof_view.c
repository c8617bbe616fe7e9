/* tools/prof_view.c - what `edgeprobe prof` (tools/cmd_prof.c) does with a
 * report once the profiled process has written it: the flame graph from
 * the folded stacks the agent derived (tools/export.c draws it, as for
 * `edgeprobe report --svg`), and FILE:LINE in the table's "where" column
 * from addr2line, when it is installed. Both run here, in the command, and
 * never in the profiled process: addr2line is a program to run, and DWARF
 * line tables are too much to parse in an agent. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "export.h"
#include "prof_common.h"
#include "prof_view.h"

int prof_flame_svg(const char *folded, const char *svg, const char *title) {
    struct export_stacks *s = export_stacks_new();
    FILE *in = fopen(folded, "r"), *out = NULL;
    int rc = -1;
    if (s && in && !export_read_folded(s, in) && (out = fopen(svg, "w")))
        rc = export_write_flame_svg_axis(s, out, title, 1e-6, "ms"); /* folded weights are ns */
    if (out && fclose(out)) rc = -1;
    if (in) fclose(in);
    export_stacks_free(s);
    if (rc) fprintf(stderr, "edgeprobe prof: cannot draw %s from %s\n", svg, folded);
    return rc;
}

/* ---- where: OBJECT+0xADDRESS -> FILE:LINE --------------------------------- */
struct where {
    char *line;          /* a report line (owned)                          */
    char *field;         /* its where field, in line; NULL: no table row   */
    char *object;        /* the field's object (owned)                     */
    const char *address; /* the field's "0x...", in line                   */
    char *found;         /* FILE:LINE, or NULL                             */
};

/* addr2line's answer for one address, made short: the path relative to the
 * current directory, no "(discriminator N)"; NULL for "??:?" and for a
 * file without a line. Without line tables addr2line still names the
 * file of a static function, from the symbol table's FILE entries
 * ("lapi.c:?", or ":?" for one it has no name for): that told less than
 * OBJECT+0xADDRESS, which it replaced in every row of a lua built
 * without -g. */
static char *short_location(char *answer) {
    char cwd[PATH_MAX], *colon;
    size_t n;
    answer[strcspn(answer, "\n")] = 0;
    answer[strcspn(answer, " ")] = 0;
    colon = strrchr(answer, ':');
    if (!answer[0] || answer[0] == '?' || !colon || colon == answer || colon[1] < '1' || colon[1] > '9') return NULL;
    if (getcwd(cwd, sizeof cwd) && (n = strlen(cwd)) && !strncmp(answer, cwd, n) && answer[n] == '/')
        return strdup(answer + n + 1);
    return strdup(answer);
}
static int same_object(const struct where *a, const struct where *b) {
    return a->field && b->field && !strcmp(a->object, b->object);
}

/* Run addr2line on the addresses of the rows of w[first]'s object (rows
 * first..n-1); fill their found. 0, or -1 when addr2line did not run. */
static int addr2line_object(struct where *w, size_t first, size_t n) {
    const char **argv = calloc(n - first + 4, sizeof *argv);
    char line[PATH_MAX + 64];
    size_t i, k = 0;
    int pipefd[2], status;
    pid_t pid;
    FILE *in;
    if (!argv || pipe(pipefd)) return free(argv), -1;
    argv[k++] = "addr2line";
    argv[k++] = "-e";
    argv[k++] = w[first].object;
    for (i = first; i < n; i++)
        if (same_object(&w[i], &w[first])) argv[k++] = w[i].address;
    if ((pid = fork()) == 0) {
        dup2(pipefd[1], 1);
        close(pipefd[0]);
        close(pipefd[1]);
        if (!freopen("/dev/null", "w", stderr)) {} /* not installed: the command says nothing */
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    free(argv);
    close(pipefd[1]);
    if (pid < 0 || !(in = fdopen(pipefd[0], "r"))) return close(pipefd[0]), -1;
    for (i = first; i < n; i++)
        if (same_object(&w[i], &w[first]) && fgets(line, sizeof line, in)) w[i].found = short_location(line);
    fclose(in);
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* One report line; a table row's where field split into object and address. */
static int read_line(struct where *r, const char *buf, int in_table) {
    char *sp, *sep;
    memset(r, 0, sizeof *r);
    if (!(r->line = strdup(buf))) return -1;
    if (!in_table || !(sp = strrchr(r->line, ' ')) || sp[1] != '/' || !(sep = strstr(sp + 1, PROF_WHERE_SEP))) return 0;
    r->field = sp + 1;
    r->field[strcspn(r->field, "\n")] = 0;
    r->address = sep + 1;
    return (r->object = strndup(r->field, (size_t)(sep - r->field))) ? 0 : -1;
}
/* Every line of the report in *out; their number, or -1. */
static long read_report(FILE *f, struct where **out) {
    char buf[65536];
    size_t n = 0, cap = 0;
    int in_table = 0;
    struct where *w = NULL, *more;
    while (fgets(buf, sizeof buf, f)) {
        if (!strncmp(buf, "function ", 9)) in_table = 1;
        else if (buf[0] == '\n' || !strncmp(buf, "total = ", 8) || !strncmp(buf, "... ", 4)) in_table = 0;
        if (n == cap) {
            if (!(more = realloc(w, (cap ? 2 * cap : 256) * sizeof *w))) break;
            w = more, cap = cap ? 2 * cap : 256;
        }
        if (read_line(&w[n++], buf, in_table)) break;
    }
    *out = w;
    return ferror(f) || !feof(f) ? -1 : (long)n;
}
static void free_report(struct where *w, long n) {
    long i;
    for (i = 0; i < n; i++) free(w[i].line), free(w[i].object), free(w[i].found);
    free(w);
}
/* The report again, FILE:LINE where found; 0, or -1. */
static int rewrite_report(const char *report, const struct where *w, long n) {
    char tmp[PATH_MAX];
    long i;
    FILE *out;
    if (snprintf(tmp, sizeof tmp, "%s.where", report) >= (int)sizeof tmp || !(out = fopen(tmp, "w"))) return -1;
    for (i = 0; i < n; i++) {
        if (w[i].found) fprintf(out, "%.*s%s\n", (int)(w[i].field - w[i].line), w[i].line, w[i].found);
        else fprintf(out, "%s%s", w[i].line, w[i].field ? "\n" : "");
    }
    if (fclose(out) || rename(tmp, report)) return unlink(tmp), -1;
    return 0;
}

int prof_resolve_where(const char *report) {
    struct where *w = NULL;
    long n, i, j;
    int ran = 0, rc = 0;
    FILE *f = fopen(report, "r");
    if (!f) return -1;
    n = read_report(f, &w);
    fclose(f);
    for (i = 0; i < n; i++) { /* one addr2line per object */
        for (j = 0; j < i && !same_object(&w[j], &w[i]); j++) {}
        if (w[i].field && j == i) ran += addr2line_object(w, (size_t)i, (size_t)n) == 0;
    }
    if (n > 0 && ran) rc = rewrite_report(report, w, n);
    free_report(w, n > 0 ? n : 0);
    return n < 0 ? -1 : rc;
}
