/* t_sort.c - edgeprobe__sort_by_key (include/edgeprobe.h section 27.3), the
 * radix sort the function-probe scan sorts symbols and entries with, and
 * the profiler its functions: ascending by a uint64_t key at any offset of
 * records of 8 to 48 bytes, stable, for keys that differ in every byte, in
 * a few low bytes only (text addresses), in the high bytes only, or not at
 * all; 0 and 1 records; with a spare buffer given, or its own. Each result
 * is checked against insertion sort. */
#include "check.h"
#define EDGEPROBE_IMPLEMENTATION
#include "edgeprobe.h"

#include <stdlib.h>

#define MAX_N 3000
#define MAX_SIZE 48

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* xorshift64*: the same records every run */
    rnd_state ^= rnd_state >> 12;
    rnd_state ^= rnd_state << 25;
    rnd_state ^= rnd_state >> 27;
    return rnd_state * 0x2545f4914f6cdd1dull;
}
static uint64_t key_of(const unsigned char *rec, size_t key) {
    uint64_t k;
    memcpy(&k, rec + key, 8);
    return k;
}
/* The reference: insertion sort, stable by construction. */
static void insertion_sort(unsigned char *v, size_t n, size_t size, size_t key) {
    unsigned char tmp[MAX_SIZE];
    size_t i, j;
    for (i = 1; i < n; i++) {
        memcpy(tmp, v + i * size, size);
        for (j = i; j > 0 && key_of(v + (j - 1) * size, key) > key_of(tmp, key); j--)
            memcpy(v + j * size, v + (j - 1) * size, size);
        memcpy(v + j * size, tmp, size);
    }
}
enum { KEYS_ANY, KEYS_LOW, KEYS_HIGH, KEYS_SAME, KEYS_FEW };
static uint64_t make_key(int kind) {
    switch (kind) {
    case KEYS_ANY: return rnd();
    case KEYS_LOW: return 0x55d4c0000000ull + (rnd() & 0xfffff); /* one object's text */
    case KEYS_HIGH: return rnd() & 0xff00000000000000ull;
    case KEYS_SAME: return 42;
    default: return rnd() % 7; /* many ties: stability shows */
    }
}
static unsigned char a[MAX_N * MAX_SIZE], b[MAX_N * MAX_SIZE], spare[MAX_N * MAX_SIZE];
static void one_case(size_t n, size_t size, size_t key, int kind, int spare_given) {
    size_t i, j;
    for (i = 0; i < n; i++) {
        uint64_t k = make_key(kind);
        for (j = 0; j < size; j++) a[i * size + j] = (unsigned char)(i >> (8 * (j % 4))); /* its place: stability */
        memcpy(a + i * size + key, &k, 8);
    }
    memcpy(b, a, n * size);
    CHECK_EQ(edgeprobe__sort_by_key(a, n, size, key, spare_given ? spare : 0), 0);
    insertion_sort(b, n, size, key);
    if (memcmp(a, b, n * size) != 0) {
        fprintf(stderr, "n=%zu size=%zu key=%zu kind=%d spare=%d: differs from insertion sort\n", n, size, key, kind,
                spare_given);
        CHECK(0);
    }
}
int main(void) {
    static const size_t shapes[][2] = {{8, 0}, {16, 0}, {16, 8}, {24, 8}, {48, 40}, {48, 16}};
    static const size_t sizes[] = {0, 1, 2, 3, 255, 256, 257, 1000, MAX_N};
    size_t s, n;
    int kind, given;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (n = 0; n < sizeof sizes / sizeof sizes[0]; n++)
            for (kind = KEYS_ANY; kind <= KEYS_FEW; kind++)
                for (given = 0; given < 2; given++) one_case(sizes[n], shapes[s][0], shapes[s][1], kind, given);
    return check_done("sort");
}
