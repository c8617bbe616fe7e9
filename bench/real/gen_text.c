/* gen_text.c - deterministic pseudo-text for the bzip2 workload:
 * gen_text MEGABYTES > file. Words from a small vocabulary with a skewed
 * (Zipf-like) choice, numbers, punctuation and line breaks: compresses about
 * like English prose (bzip2 ratio ~3-4x), so bzip2 does real work. */
#include <stdio.h>
#include <stdlib.h>

static const char *words[] = {
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on",
    "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "had", "they",
    "you", "were", "their", "one", "all", "we", "can", "her", "has", "there", "been", "if", "more", "when",
    "will", "would", "who", "so", "no", "probe", "kernel", "thread", "patch", "instruction", "cache",
    "line", "straddle", "toggle", "profiler", "sample", "epoch", "function", "latency", "compiler",
    "memory", "barrier", "atomic", "register", "branch", "interrupt", "scheduler", "processor", "queue",
    "buffer", "packet", "network", "storage", "device", "driver", "module", "library", "symbol", "address",
    "segment", "page", "table", "entry", "exit", "handler", "signal", "trampoline", "offset", "section"};
#define NW (sizeof words / sizeof words[0])

static unsigned long long s = 88172645463325252ull;
static unsigned long long rnd(void) { /* xorshift64 */
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return s;
}

int main(int argc, char **argv) {
    unsigned long long want = (unsigned long long)(argc > 1 ? atof(argv[1]) : 64) * 1024 * 1024, n = 0;
    static char buf[1 << 16];
    size_t len = 0;
    int col = 0;
    while (n < want) {
        char w[32];
        int k, r = (int)(rnd() % 1000);
        unsigned idx = (unsigned)((rnd() % NW) * (rnd() % NW) / NW); /* skewed towards small indices */
        if (r < 30) k = snprintf(w, sizeof w, "%llu", rnd() % 100000);
        else k = snprintf(w, sizeof w, "%s", words[idx]);
        if (r > 990) w[k++] = '.';
        else if (r > 960) w[k++] = ',';
        w[k++] = (col += k) > 72 ? (col = 0, '\n') : ' ';
        if (len + (size_t)k > sizeof buf) {
            fwrite(buf, 1, len, stdout);
            len = 0;
        }
        for (int i = 0; i < k; i++) buf[len++] = w[i];
        n += (unsigned long long)k;
    }
    fwrite(buf, 1, len, stdout);
    return 0;
}
