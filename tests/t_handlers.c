/* Handler probes and discovery: the right id, user pointer and value; a
 * replacement under concurrent execution never reaches a freed user block
 * once edgeprobe_handler_sync() has returned; detached probes never call. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#define EDGEPROBE_IMPLEMENTATION /* this program's one copy of the implementation */
#include "edgeprobe.h"
#include "check.h"

#define MAGIC 0x5eed5eedu
#define REPLACEMENTS 1000
struct user_block { unsigned magic; unsigned long long calls; };

static int last_id = -1;
static void *last_user;
static uintptr_t last_value;
static void record(const edgeprobe_info *info, void *user, uintptr_t value) {
    last_id = info->id;
    last_user = user;
    last_value = value;
}
static unsigned long long bad_calls, good_calls;
/* Checks its block on entry and again after dwelling a little: the sync
 * covers the whole call, so a freed block seen at either end is a bug. */
static void checked(const edgeprobe_info *info, void *user, uintptr_t value) {
    volatile struct user_block *u = (struct user_block *)user;
    int spin, ok = u->magic == MAGIC;
    (void)info, (void)value;
    for (spin = 0; spin < 200; spin++) edgeprobe__pause();
    ok = ok && u->magic == MAGIC;
    __atomic_fetch_add(ok ? &good_calls : &bad_calls, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void site_one(int v) { EDGEPROBE_HANDLER(h_one, v * 10); }
__attribute__((noinline)) static void site_two(void) { EDGEPROBE_HANDLER(h_two, 2); }
__attribute__((noinline)) static void site_hot(void) { EDGEPROBE_HANDLER(h_hot, 0); }

static int discovered[64], discovered_n;
static void on_discover(const edgeprobe_info *info, void *arg) {
    (void)arg;
    if (info->id >= 0 && info->id < 64) discovered[info->id]++;
    discovered_n++;
}

static void test_identity(void) {
    edgeprobe_info info;
    int user_a, user_b, id_one = -1, i;
    for (i = 0; i < edgeprobe_point_count(); i++)
        if (edgeprobe_point_info(i, &info) == 0 && !strcmp(info.name, "h_one")) id_one = i;
    CHECK(id_one >= 0);
    site_one(1);
    CHECK_EQ(last_id, -1); /* nothing attached: the site is a NOP */
    CHECK_EQ(edgeprobe_attach("h_one", record, &user_a), 1);
    site_one(4);
    CHECK_EQ(last_id, id_one);
    CHECK(last_user == &user_a);
    CHECK_EQ(last_value, 40);
    CHECK_EQ(edgeprobe_attach("h_one", record, &user_b), 1); /* a data store only */
    site_one(5);
    CHECK(last_user == &user_b);
    CHECK_EQ(last_value, 50);
    CHECK_EQ(edgeprobe_attach("h_*", record, &user_a), 3);
    site_two();
    CHECK_EQ(last_value, 2);
    CHECK(last_id != id_one);
    CHECK_EQ(edgeprobe_detach("h_*"), 3);
    last_id = -1;
    site_one(6);
    site_two();
    CHECK_EQ(last_id, -1);
    CHECK_EQ(edgeprobe_handler_sync(), 0);
}

static void test_bad_input(void) {
    CHECK_EQ(edgeprobe_attach("h_one", NULL, NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_attach(NULL, record, NULL), EDGEPROBE_EINVAL);
    CHECK_EQ(edgeprobe_attach("h_nonexistent", record, NULL), EDGEPROBE_ENOENT);
    CHECK_EQ(edgeprobe_attach("h_none_*", record, NULL), 0);
    CHECK_EQ(edgeprobe_detach("h_["), EDGEPROBE_EPATTERN);
}

static void test_discovery(void) {
    int i, n = edgeprobe_point_count();
    CHECK_EQ(edgeprobe_set_discovery(on_discover, NULL), 0);
    CHECK_EQ(discovered_n, n);
    for (i = 0; i < n && i < 64; i++) CHECK_EQ(discovered[i], 1); /* dense ids, each once */
    CHECK_EQ(edgeprobe_set_discovery(NULL, NULL), 0);
}

/* Executors run the hot site; the main thread keeps replacing the handler's
 * user block, syncing, then poisoning and freeing the old block. */
static volatile int stop;
static int replacements_with_calls;
static void *executor(void *arg) {
    (void)arg;
    while (!stop) site_hot();
    return NULL;
}
/* Wait (up to 50 ms) until some handler call completed since the last wait:
 * on a loaded machine the executors might otherwise not run at all while
 * the replacements happen, and the test would prove nothing. */
static void wait_for_calls(void) {
    static unsigned long long seen;
    struct timespec tick = {0, 10000};
    int k;
    for (k = 0; k < 5000 && __atomic_load_n(&good_calls, __ATOMIC_RELAXED) == seen; k++) nanosleep(&tick, NULL);
    if (__atomic_load_n(&good_calls, __ATOMIC_RELAXED) != seen) replacements_with_calls++;
    seen = __atomic_load_n(&good_calls, __ATOMIC_RELAXED);
}
static void test_replace_under_load(void) {
    pthread_t th[2];
    struct user_block *cur = malloc(sizeof *cur);
    int i, t;
    cur->magic = MAGIC;
    cur->calls = 0;
    stop = 0;
    CHECK_EQ(edgeprobe_attach("h_hot", checked, cur), 1);
    for (t = 0; t < 2; t++) pthread_create(&th[t], NULL, executor, NULL);
    for (i = 0; i < REPLACEMENTS; i++) {
        struct user_block *next = malloc(sizeof *next), *old = cur;
        wait_for_calls(); /* the executors really are running the handler */
        next->magic = MAGIC;
        next->calls = 0;
        if (i % 250 == 249) { /* now and then switch off and on: code changes too */
            CHECK(edgeprobe_detach("h_hot") >= 0);
        }
        CHECK(edgeprobe_attach("h_hot", checked, next) == 1);
        cur = next;
        CHECK_EQ(edgeprobe_handler_sync(), 0);
        old->magic = 0xdeadu; /* any later use is caught: by magic, or by ASan */
        free(old);
    }
    CHECK_EQ(edgeprobe_detach("h_hot"), 1);
    CHECK_EQ(edgeprobe_handler_sync(), 0);
    {
        unsigned long long calls = good_calls;
        struct timespec ms = {0, 2000000};
        nanosleep(&ms, NULL);
        CHECK_EQ(good_calls, calls); /* detached: never called again */
    }
    stop = 1;
    for (t = 0; t < 2; t++) pthread_join(th[t], NULL);
    free(cur);
    CHECK_EQ(bad_calls, 0);
    CHECK(replacements_with_calls > REPLACEMENTS * 97 / 100); /* calls really ran between replacements */
    printf("t_handlers: %llu handler calls; %d of %d replacements had calls in between\n", good_calls,
           replacements_with_calls, REPLACEMENTS);
}

/* A handler may toggle probes while another thread waits in
 * edgeprobe_handler_sync(): the sync must not hold the registry lock. */
static void toggling(const edgeprobe_info *info, void *user, uintptr_t value) {
    (void)info, (void)user, (void)value;
    edgeprobe_enable("h_one");
    edgeprobe_disable("h_one");
}
static void *run_two(void *arg) {
    (void)arg;
    while (!stop) site_two();
    return NULL;
}
static void test_sync_while_handler_toggles(void) {
    pthread_t t;
    int i;
    stop = 0;
    CHECK_EQ(edgeprobe_attach("h_two", toggling, NULL), 1);
    pthread_create(&t, NULL, run_two, NULL);
    for (i = 0; i < 2000; i++) CHECK_EQ(edgeprobe_handler_sync(), 0);
    stop = 1;
    pthread_join(t, NULL);
    CHECK_EQ(edgeprobe_detach("h_two"), 1);
}

int main(void) {
    test_sync_while_handler_toggles();
    test_identity();
    test_bad_input();
    test_discovery();
    test_replace_under_load();
    return check_done("t_handlers");
}
