/* cow_text.c - LD_PRELOAD experiment: at start-up, make the main program's
 * code pages private copies (write each page's first byte back to itself,
 * as any run-time code patcher does), change nothing else. Timing a program
 * with and without it isolates what copy-on-write of the text costs the
 * program afterwards (iTLB, large page-cache folios lost), apart from any
 * probe. Used by hand:
 *   cc -O2 -shared -fPIC bench/real/cow_text.c -o build/real/cow_text.so
 *   LD_PRELOAD=build/real/cow_text.so build/real/fpe/lua bench/real/bench.lua 20 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static int cow_main_text(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size, (void)data;
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(page - 1);
        uintptr_t hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC)) return 1;
        for (uintptr_t p = lo; p < hi; p += (uintptr_t)page) {
            volatile unsigned char *b = (volatile unsigned char *)p;
            *b = *b;
        }
        mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
    }
    return 1; /* the first object is the main program: stop there */
}

__attribute__((constructor)) static void cow_text_init(void) { dl_iterate_phdr(cow_main_text, 0); }
