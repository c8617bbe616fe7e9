/* tools/control_elf.c - list the probes of an ELF file without running it.
 *
 * Markers: the table (include/edgeprobe.h, >>markers) is the section
 * edgeprobe_sites: records laid out as the header's edgeprobe__record, each
 * address an offset from its own field, so the file holds every value as
 * it is (no relocation). Records that share a mark are the sites of one
 * point (one source-level marker, inlined or unrolled).
 *
 * Function probes: the compiler's __patchable_function_entries sections
 * (-fpatchable-function-entry=5) list every function entry. In a PIE or a
 * shared library the file holds those addresses as R_X86_64_RELATIVE
 * relocations (the address is the addend); elsewhere as they are. Each
 * entry is named by the function symbol at it (.symtab, else .dynsym), or
 * at 4 bytes before it (the NOPs follow an endbr64). */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "edgeprobe.h" /* edgeprobe__record, enum edgeprobe_kind */

#define REC_SIZE sizeof(edgeprobe__record)
#define REC_FIELD(name) ((int)offsetof(edgeprobe__record, name))
#define MAX_FILE (1u << 30) /* refuse files over 1 GiB */

typedef struct image {
    const unsigned char *data;
    size_t size;
    const Elf64_Ehdr *eh;
} image;

static const Elf64_Shdr *section(const image *im, int i) {
    return (const Elf64_Shdr *)(im->data + im->eh->e_shoff + (size_t)i * im->eh->e_shentsize);
}
static int in_file(const image *im, uint64_t off, uint64_t len) { return off <= im->size && len <= im->size - off; }

/* The file bytes at a virtual address (any PT_LOAD), or NULL. */
static const unsigned char *at(const image *im, uint64_t vaddr, uint64_t len) {
    int i;
    for (i = 0; i < im->eh->e_phnum; i++) {
        const Elf64_Phdr *ph = (const Elf64_Phdr *)(im->data + im->eh->e_phoff + (size_t)i * im->eh->e_phentsize);
        if (ph->p_type != PT_LOAD || vaddr < ph->p_vaddr || vaddr - ph->p_vaddr + len > ph->p_filesz) continue;
        if (!in_file(im, ph->p_offset + (vaddr - ph->p_vaddr), len)) return NULL;
        return im->data + ph->p_offset + (vaddr - ph->p_vaddr);
    }
    return NULL;
}

/* A NUL-terminated string at vaddr, copied (cut) into buf. */
static int read_str(const image *im, uint64_t vaddr, char *buf, size_t cap) {
    size_t n = 0;
    const unsigned char *p;
    for (; n + 1 < cap; n++) {
        if (!(p = at(im, vaddr + n, 1))) return -1;
        if (!(buf[n] = (char)*p)) return 0;
    }
    buf[n] = 0;
    return 0;
}

static const char *kind_name(unsigned kind) {
    static const char *const names[] = {
        [0] = "?", [EDGEPROBE_KIND_TRACE] = "trace", [EDGEPROBE_KIND_BRANCH] = "branch",
        [EDGEPROBE_KIND_BRANCH_ON] = "branch_on", [EDGEPROBE_KIND_HANDLER] = "handler", [EDGEPROBE_KIND_ENTRY] = "entry",
        [EDGEPROBE_KIND_EXIT] = "exit", [EDGEPROBE_KIND_FUNCTION] = "function", [EDGEPROBE_KIND_PROBE] = "probe"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "other";
}

/* A record's field at `off`: a 32-bit value, or the address it is relative to. */
static int32_t field(const unsigned char *rec, int off) {
    int32_t v;
    memcpy(&v, rec + off, 4);
    return v;
}
static uint64_t field_addr(uint64_t rec_vaddr, const unsigned char *rec, int off) {
    return rec_vaddr + (uint64_t)off + (uint64_t)(int64_t)field(rec, off);
}
/* The point of the record at rec_vaddr into p. */
static int read_point(const image *im, uint64_t rec_vaddr, const unsigned char *rec, ctl_probe *p) {
    unsigned kind = (uint32_t)field(rec, REC_FIELD(flags)) >> 16;
    if (read_str(im, field_addr(rec_vaddr, rec, REC_FIELD(name)), p->name, sizeof p->name) ||
        read_str(im, field_addr(rec_vaddr, rec, REC_FIELD(file)), p->file, sizeof p->file) ||
        read_str(im, field_addr(rec_vaddr, rec, REC_FIELD(function)), p->function, sizeof p->function))
        return -1;
    p->line = field(rec, REC_FIELD(line));
    snprintf(p->kind, sizeof p->kind, "%s", kind_name(kind));
    p->on = kind == EDGEPROBE_KIND_BRANCH_ON; /* starts on */
    return 0;
}

static int check_header(const image *im, const char *file) {
    const Elf64_Ehdr *eh = im->eh;
    if (im->size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG)) {
        fprintf(stderr, "edgeprobe list: %s is not an ELF file\n", file);
        return -1;
    }
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB) {
        fprintf(stderr, "edgeprobe list: %s is not a 64-bit little-endian ELF file\n", file);
        return -1;
    }
    if (!in_file(im, eh->e_shoff, (uint64_t)eh->e_shnum * eh->e_shentsize) ||
        !in_file(im, eh->e_phoff, (uint64_t)eh->e_phnum * eh->e_phentsize) ||
        (eh->e_shnum && eh->e_shentsize != sizeof(Elf64_Shdr)) || (eh->e_phnum && eh->e_phentsize != sizeof(Elf64_Phdr)) ||
        eh->e_shstrndx >= eh->e_shnum) {
        fprintf(stderr, "edgeprobe list: %s: damaged ELF headers\n", file);
        return -1;
    }
    return 0;
}

/* Is section i called name? */
static int section_is(const image *im, int i, const char *name) {
    const Elf64_Shdr *names = section(im, im->eh->e_shstrndx), *sh = section(im, i);
    size_t len = strlen(name) + 1;
    return names->sh_offset + sh->sh_name + len <= im->size &&
           !memcmp(im->data + names->sh_offset + sh->sh_name, name, len);
}
/* The edgeprobe_sites section, or NULL. */
static const Elf64_Shdr *sites_section(const image *im) {
    int i;
    for (i = 0; i < im->eh->e_shnum; i++)
        if (section_is(im, i, "edgeprobe_sites")) return section(im, i);
    return NULL;
}

/* One row per point (in table order); a point with several records counts
 * them as sites. Points are found by mark in an open-addressing table. */
static int read_table(const image *im, const Elf64_Shdr *sh, const char *file, ctl_probe **out, int *n) {
    size_t nrec = sh->sh_size / REC_SIZE, cap = 16, i;
    uint64_t *marks;
    int *rows;
    while (cap < 2 * nrec) cap *= 2;
    marks = calloc(cap, sizeof *marks);
    rows = calloc(cap, sizeof *rows);
    *out = calloc(nrec + 1, sizeof **out);
    if (!marks || !rows || !*out || !in_file(im, sh->sh_offset, sh->sh_size)) {
        free(marks);
        free(rows);
        return -1;
    }
    for (i = 0; i < nrec; i++) {
        const unsigned char *rec = im->data + sh->sh_offset + i * REC_SIZE;
        uint64_t vaddr = sh->sh_addr + i * REC_SIZE, mark = field_addr(vaddr, rec, REC_FIELD(mark));
        size_t h = (size_t)(mark * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
        while (marks[h] && marks[h] != mark) h = (h + 1) & (cap - 1);
        if (marks[h]) {
            (*out)[rows[h]].sites++;
            continue;
        }
        if (read_point(im, vaddr, rec, &(*out)[*n])) {
            fprintf(stderr, "edgeprobe list: %s: the strings of record %zu (at 0x%llx) cannot be read\n", file, i,
                    (unsigned long long)vaddr);
            free(marks);
            free(rows);
            return -1;
        }
        marks[h] = mark;
        rows[h] = *n;
        (*out)[*n].id = *n;
        (*out)[*n].sites = 1;
        (*n)++;
    }
    free(marks);
    free(rows);
    return 0;
}

/* ---- function probes ---- */
typedef struct {
    uint64_t *v; /* sorted */
    size_t n, cap;
} addr_set;
static int addr_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static int addr_add(addr_set *s, uint64_t a) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        uint64_t *v = realloc(s->v, cap * sizeof *v);
        if (!v) return -1;
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = a;
    return 0;
}
/* The addend of the R_X86_64_RELATIVE relocation at vaddr (relocs sorted
 * by offset), or 0. */
static uint64_t relative_at(const Elf64_Rela *relocs, size_t n, uint64_t vaddr) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (relocs[mid].r_offset < vaddr) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && relocs[lo].r_offset == vaddr && ELF64_R_TYPE(relocs[lo].r_info) == R_X86_64_RELATIVE
               ? (uint64_t)relocs[lo].r_addend : 0;
}
static int rela_cmp(const void *a, const void *b) {
    uint64_t x = ((const Elf64_Rela *)a)->r_offset, y = ((const Elf64_Rela *)b)->r_offset;
    return x < y ? -1 : x > y;
}
/* Every function entry the file's __patchable_function_entries name. */
static int entries_read(const image *im, addr_set *out) {
    Elf64_Rela *relocs = NULL;
    size_t nrel = 0, i, k;
    int s;
    for (s = 0; s < im->eh->e_shnum; s++) { /* the dynamic relocations, sorted */
        const Elf64_Shdr *sh = section(im, s);
        size_t m = sh->sh_size / sizeof(Elf64_Rela);
        Elf64_Rela *grown;
        if (sh->sh_type != SHT_RELA || !(sh->sh_flags & SHF_ALLOC) || !in_file(im, sh->sh_offset, sh->sh_size)) continue;
        if (!(grown = realloc(relocs, (nrel + m + 1) * sizeof *relocs))) {
            free(relocs);
            return -1;
        }
        relocs = grown;
        memcpy(relocs + nrel, im->data + sh->sh_offset, m * sizeof *relocs);
        nrel += m;
    }
    if (nrel) qsort(relocs, nrel, sizeof *relocs, rela_cmp);
    for (s = 0; s < im->eh->e_shnum; s++) {
        const Elf64_Shdr *sh = section(im, s);
        if (!section_is(im, s, "__patchable_function_entries") || !in_file(im, sh->sh_offset, sh->sh_size)) continue;
        for (i = 0; i + 8 <= sh->sh_size; i += 8) {
            uint64_t a;
            memcpy(&a, im->data + sh->sh_offset + i, 8);
            if (!a && sh->sh_type != SHT_NOBITS) a = relative_at(relocs, nrel, sh->sh_addr + i);
            if (a && addr_add(out, a)) {
                free(relocs);
                return -1;
            }
        }
    }
    free(relocs);
    qsort(out->v, out->n, sizeof *out->v, addr_cmp);
    for (i = k = 0; i < out->n; i++) /* one per function */
        if (!k || out->v[i] != out->v[k - 1]) out->v[k++] = out->v[i];
    out->n = k;
    return 0;
}
/* The name of the function at entry a (or at a - 4) in symbol table sh. */
static const char *function_name(const image *im, const Elf64_Shdr *sh, uint64_t a) {
    const Elf64_Shdr *str;
    size_t i, n;
    if (!sh || sh->sh_link >= im->eh->e_shnum || !in_file(im, sh->sh_offset, sh->sh_size)) return NULL;
    str = section(im, (int)sh->sh_link);
    n = sh->sh_size / sizeof(Elf64_Sym);
    for (i = 0; i < n; i++) {
        const Elf64_Sym *sym = (const Elf64_Sym *)(im->data + sh->sh_offset) + i;
        if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_shndx) continue;
        if ((sym->st_value == a || sym->st_value + 4 == a) && sym->st_name < str->sh_size &&
            in_file(im, str->sh_offset + sym->st_name, 1))
            return (const char *)im->data + str->sh_offset + sym->st_name;
    }
    return NULL;
}
static const Elf64_Shdr *symbols(const image *im, unsigned type) {
    int i;
    for (i = 0; i < im->eh->e_shnum; i++)
        if (section(im, i)->sh_type == type) return section(im, i);
    return NULL;
}
/* One row per function entry, after the markers' rows. Returns how many. */
static int read_functions(const image *im, const char *file, ctl_probe **out, int *n) {
    addr_set entries = {0, 0, 0};
    const Elf64_Shdr *symtab = symbols(im, SHT_SYMTAB), *dynsym = symbols(im, SHT_DYNSYM);
    ctl_probe *grown;
    size_t i;
    if (entries_read(im, &entries) || !entries.n) {
        free(entries.v);
        return 0;
    }
    if (!(grown = realloc(*out, (*n + entries.n + 1) * sizeof **out))) {
        free(entries.v);
        return -1;
    }
    *out = grown;
    for (i = 0; i < entries.n; i++) {
        ctl_probe *p = &(*out)[*n];
        const char *name = function_name(im, symtab, entries.v[i]);
        if (!name) name = function_name(im, dynsym, entries.v[i]);
        memset(p, 0, sizeof *p);
        p->id = *n;
        p->sites = 1;
        snprintf(p->kind, sizeof p->kind, "function");
        if (name) snprintf(p->name, sizeof p->name, "%s", name);
        else snprintf(p->name, sizeof p->name, "0x%llx", (unsigned long long)entries.v[i]);
        edgeprobe__strip_lto_priv(p->name); /* as the scan names it */
        snprintf(p->function, sizeof p->function, "%s", p->name);
        snprintf(p->file, sizeof p->file, "%s", file);
        (*n)++;
    }
    free(entries.v);
    return (int)i;
}

int elf_list(const char *file, ctl_probe **out, int *n) {
    image im;
    FILE *f = fopen(file, "rb");
    long size;
    const Elf64_Shdr *sh;
    unsigned char *data;
    int rc = -1, functions = 0;
    memset(&im, 0, sizeof im);
    *out = NULL;
    *n = 0;
    if (!f) {
        perror(file);
        return -1;
    }
    if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || (unsigned long)size > MAX_FILE || fseek(f, 0, SEEK_SET)) {
        fprintf(stderr, "edgeprobe list: %s: cannot read (or larger than 1 GiB)\n", file);
        fclose(f);
        return -1;
    }
    data = malloc((size_t)size + 1);
    if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "edgeprobe list: %s: cannot read\n", file);
        fclose(f);
        free(data);
        return -1;
    }
    fclose(f);
    im.data = data;
    im.size = (size_t)size;
    im.eh = (const Elf64_Ehdr *)data;
    if (check_header(&im, file)) goto done;
    rc = (sh = sites_section(&im)) && sh->sh_size ? read_table(&im, sh, file, out, n) : 0;
    if (rc == 0 && (functions = read_functions(&im, file, out, n)) < 0) rc = -1;
    if (rc == 0 && functions == 0)
        fprintf(stderr, "edgeprobe list: %s has no function entries (build with -fpatchable-function-entry=5 "
                        "for function probes)%s\n", file, *n ? "" : " and no edgeprobe markers");
done:
    free(data);
    return rc;
}
