/* edgeprobe list PID|FILE [--json] - the probes of a running process (with
 * state and hit counts), or of an ELF executable or library read offline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "control.h"
#include "tool.h"


static void print_table(const ctl_probe *p, int n, int live) {
    int i;
    printf("%4s %-9s %-5s %12s %5s  %-24s %s\n", "ID", "KIND", live ? "STATE" : "START", live ? "HITS" : "-",
           "SITES", "NAME", "FILE:LINE FUNCTION");
    for (i = 0; i < n; i++) {
        char hits[24] = "-", where[540];
        if (live) snprintf(hits, sizeof hits, "%llu", p[i].hits);
        printf("%4d %-9s %-5s %12s %5d  %-24s %s %s\n", p[i].id, p[i].kind, p[i].on ? "on" : "off", hits, p[i].sites,
               p[i].name, ctl_where(&p[i], where, sizeof where), p[i].function);
    }
}

static void print_json(const ctl_probe *p, int n, int live) {
    int i;
    printf("[");
    for (i = 0; i < n; i++) {
        printf("%s\n  {\"id\": %d, \"name\": ", i ? "," : "", p[i].id);
        json_string(stdout, p[i].name);
        printf(", \"kind\": \"%s\", \"state\": \"%s\", \"hits\": ", p[i].kind, p[i].on ? "on" : "off");
        if (live) printf("%llu", p[i].hits);
        else printf("null");
        printf(", \"sites\": %d, \"file\": ", p[i].sites);
        json_string(stdout, p[i].file);
        printf(", \"line\": %d, \"function\": ", p[i].line);
        json_string(stdout, p[i].function);
        printf("}");
    }
    printf("%s]\n", n ? "\n" : "");
}

int cmd_list(int argc, char **argv) {
    const char *target = NULL;
    int json = 0, i, n = 0, rc, live;
    ctl_probe *probes = NULL;
    struct stat st;
    if (ctl_help(argc, argv, USAGE_LIST)) return 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!target) target = argv[i];
        else target = NULL, i = argc;
    }
    if (!target || argc > 3) {
        fprintf(stderr, "usage: edgeprobe " USAGE_LIST "\n");
        return TOOL_EXIT_USAGE;
    }
    live = ctl_is_pid(target) || (!stat(target, &st) && S_ISSOCK(st.st_mode));
    if (live) {
        ctl_conn *c = ctl_connect(target);
        rc = c ? ctl_list(c, &probes, &n) : -1;
        ctl_disconnect(c);
    } else {
        rc = elf_list(target, &probes, &n);
    }
    if (rc) {
        free(probes);
        return 1;
    }
    if (json) print_json(probes, n, live);
    else print_table(probes, n, live);
    free(probes);
    return 0;
}
