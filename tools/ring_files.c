/* tools/ring_files.c - trace-file blocks from ring files (ring_files.h). */
#include "ring_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "edgeprobe.h" /* the ring's layout (section 11.8); no implementation */

enum { BLK_EVENTS = 1, BLK_THREAD = 3, BLK_END = 4 };

void ring_put_block(FILE *f, uint32_t type, int tid, const void *payload, uint64_t len) {
    uint32_t head[4] = {type, (uint32_t)tid, (uint32_t)len, (uint32_t)(len >> 32)};
    fwrite(head, sizeof head, 1, f);
    fwrite(payload, 1, (size_t)len, f);
}
static uint64_t event_words(const uint64_t *w, uint64_t k) { return 2 + ((w[k + 1] >> 40) & 0xff); }

/* Words [from, head) copied out of a ring that may be written meanwhile.
 * A producer moves `oldest` past the words it is about to overwrite before
 * it writes them (plain stores, in order on x86-64), so once the copy is
 * made, everything from the oldest read afterwards is whole. *start gets
 * the first position kept. NULL on no memory. */
static uint64_t *copy_words(const edgeprobe__ring *g, const uint64_t *w, uint64_t from, uint64_t head, int live,
                            uint64_t *start) {
    uint64_t *out = malloc((size_t)(head - from) * 8 + 8), k;
    if (!out) return NULL;
    for (k = from; k < head; k++) out[k - from] = __atomic_load_n(&w[k & g->mask], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    *start = from;
    if (live && g->flight) {
        uint64_t oldest = __atomic_load_n(&g->oldest, __ATOMIC_ACQUIRE);
        if (oldest > from) *start = oldest < head ? oldest : head;
    }
    return out;
}
/* One ring file's events and thread; the TSC of its last event in *last. */
/* file_bytes (0: not known): the trace file's length, cut back to whole
 * blocks; a ring whose block of the recorder's last round ends within it
 * (file_end) is in the file up to `drained`, though the round did not get
 * to free its room (tail): those events are not copied twice. */
static uint64_t copy_ring(FILE *f, const edgeprobe__ring *g, uint64_t bytes, int live, uint64_t file_bytes,
                          uint64_t *last, uint64_t *lost) {
    const uint64_t *w = (const uint64_t *)(const void *)((const char *)g + EDGEPROBE__RING_HEAD);
    uint64_t size = g->mask + 1, head = __atomic_load_n(&g->head, __ATOMIC_ACQUIRE), tail = g->tail, n = 0;
    uint64_t oldest = __atomic_load_n(&g->oldest, __ATOMIC_ACQUIRE), from = g->flight && oldest > tail ? oldest : tail;
    uint64_t start, k, *events;
    char thread[32];
    if (file_bytes && g->file_end && g->file_end <= file_bytes && g->drained > from && g->drained <= head) from = g->drained;
    if (head - from <= size && (events = copy_words(g, w, from, head, live, &start))) {
        const uint64_t *e = events + (start - from);
        if (head > start) ring_put_block(f, BLK_EVENTS, g->tid, e, (head - start) * 8);
        for (k = 0; k + 2 <= head - start; k += event_words(e, k), n++)
            if (e[k] > *last) *last = e[k];
        free(events);
    }
    memcpy(thread, &g->lost, 8);
    memcpy(thread + 8, g->name, 16);
    memcpy(thread + 24, &bytes, 8);
    ring_put_block(f, BLK_THREAD, g->tid, thread, 32);
    *lost += g->lost;
    return n;
}
/* Map one ring file (shared: a live ring's words as they are written). */
static uint64_t copy_ring_file(FILE *f, const char *path, int live, uint64_t file_bytes, uint64_t *last,
                               uint64_t *lost) {
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    const edgeprobe__ring *g;
    uint64_t n = 0;
    void *m;
    if (fd < 0 || fstat(fd, &st) || st.st_size < (off_t)EDGEPROBE__RING_HEAD) {
        if (fd >= 0) close(fd);
        return 0;
    }
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return 0;
    g = m;
    if (g->magic == EDGEPROBE__RING_MAGIC && (uint64_t)st.st_size == EDGEPROBE__RING_HEAD + (g->mask + 1) * 8 &&
        !((g->mask + 1) & g->mask))
        n = copy_ring(f, g, (uint64_t)st.st_size, live, file_bytes, last, lost);
    munmap(m, (size_t)st.st_size);
    return n;
}
uint64_t ring_dir_copy(FILE *f, const char *dir, int live, uint64_t file_bytes, uint64_t hz) {
    char path[PATH_MAX];
    uint64_t end[4] = {0, 0, hz, 0}, n = 0;
    struct dirent *e;
    DIR *d = opendir(dir);
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "ring-", 5) && (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
            n += copy_ring_file(f, path, live, file_bytes, &end[0], &end[3]);
    if (d) closedir(d);
    ring_put_block(f, BLK_END, 0, end, sizeof end);
    return n;
}
