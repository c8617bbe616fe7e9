/* tools/prof_view.h - views `edgeprobe prof` makes from a written report
 * (tools/prof_view.c). */
#ifndef EDGEPROBE_PROF_VIEW_H
#define EDGEPROBE_PROF_VIEW_H
/* A flame graph (SVG, axis in ms) from the agent's folded stacks (weights
 * in ns). 0, or -1 after saying why. */
int prof_flame_svg(const char *folded, const char *svg, const char *title);
/* The report's "where" column from OBJECT+0xADDRESS to FILE:LINE, by
 * addr2line, where it knows them; the report is rewritten only then. 0, or
 * -1 (the report unreadable or not rewritten). */
int prof_resolve_where(const char *report);
#endif
