/* tools/control_elf.c - list the probes of an ELF file without running it.
 *
 * The table (include/edgeprobe.h section 3) is the section edgeprobe_sites:
 * 16-byte records {site, target, point, flags}, each offset relative to its
 * own field. A record's point is a descriptor in writable data whose first
 * fields are {const char *name, *file, *function; int line; u16 kind}. In a
 * non-PIE executable those pointers are in the file as they are; in a PIE
 * executable or shared library the file holds 0 and the value is the addend
 * of an R_*_RELATIVE relocation in a SHT_RELA section (with SHT_RELR, the
 * value in the file is the addend already). */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"

#define REC_SIZE 16
#define MAX_FILE (1u << 30) /* refuse files over 1 GiB */

typedef struct image {
    const unsigned char *data;
    size_t size;
    const Elf64_Ehdr *eh;
    uint64_t *rel_at, *rel_val; /* RELATIVE relocations, sorted by address */
    size_t nrel;
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

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = **(const uint64_t *const *)a, y = **(const uint64_t *const *)b;
    return x < y ? -1 : x > y;
}
/* Collect every RELATIVE relocation of the SHT_RELA sections. */
static int load_relocs(image *im) {
    size_t cap = 0, i;
    uint64_t **order, *at_sorted, *val_sorted;
    int s;
    uint32_t relative = im->eh->e_machine == EM_AARCH64 ? R_AARCH64_RELATIVE : R_X86_64_RELATIVE;
    for (s = 0; s < im->eh->e_shnum; s++) {
        const Elf64_Shdr *sh = section(im, s);
        size_t k, n;
        if (sh->sh_type != SHT_RELA || sh->sh_entsize != sizeof(Elf64_Rela) || !in_file(im, sh->sh_offset, sh->sh_size))
            continue;
        n = sh->sh_size / sizeof(Elf64_Rela);
        for (k = 0; k < n; k++) {
            const Elf64_Rela *r = (const Elf64_Rela *)(im->data + sh->sh_offset) + k;
            if (ELF64_R_TYPE(r->r_info) != relative) continue;
            if (im->nrel == cap) {
                cap = cap ? 2 * cap : 1024;
                im->rel_at = realloc(im->rel_at, cap * sizeof(uint64_t));
                im->rel_val = realloc(im->rel_val, cap * sizeof(uint64_t));
                if (!im->rel_at || !im->rel_val) return -1;
            }
            im->rel_at[im->nrel] = r->r_offset;
            im->rel_val[im->nrel++] = (uint64_t)r->r_addend;
        }
    }
    /* sort both arrays by address */
    order = malloc((im->nrel + 1) * sizeof *order);
    at_sorted = malloc((im->nrel + 1) * sizeof(uint64_t));
    val_sorted = malloc((im->nrel + 1) * sizeof(uint64_t));
    if (!order || !at_sorted || !val_sorted) return -1;
    for (i = 0; i < im->nrel; i++) order[i] = &im->rel_at[i];
    qsort(order, im->nrel, sizeof *order, cmp_u64);
    for (i = 0; i < im->nrel; i++) {
        at_sorted[i] = *order[i];
        val_sorted[i] = im->rel_val[order[i] - im->rel_at];
    }
    free(order);
    free(im->rel_at);
    free(im->rel_val);
    im->rel_at = at_sorted;
    im->rel_val = val_sorted;
    return 0;
}

/* A pointer stored at vaddr, as the loader would see it (load base 0). */
static int read_ptr(const image *im, uint64_t vaddr, uint64_t *out) {
    size_t lo = 0, hi = im->nrel;
    const unsigned char *p;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (im->rel_at[mid] < vaddr) lo = mid + 1;
        else hi = mid;
    }
    if (lo < im->nrel && im->rel_at[lo] == vaddr) {
        *out = im->rel_val[lo];
        return 0;
    }
    if (!(p = at(im, vaddr, 8))) return -1;
    memcpy(out, p, 8);
    return 0;
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
    /* enum edgeprobe_kind (include/edgeprobe.h section 4) */
    static const char *const names[] = {"?", "trace", "branch", "branch_on", "handler", "entry", "exit", "function", "probe"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "other";
}

/* The descriptor at vaddr into p. */
static int read_point(const image *im, uint64_t vaddr, ctl_probe *p) {
    uint64_t name, file, function;
    const unsigned char *tail = at(im, vaddr + 24, 6);
    int32_t line;
    uint16_t kind;
    if (!tail || read_ptr(im, vaddr, &name) || read_ptr(im, vaddr + 8, &file) || read_ptr(im, vaddr + 16, &function))
        return -1;
    memcpy(&line, tail, 4);
    memcpy(&kind, tail + 4, 2);
    if (read_str(im, name, p->name, sizeof p->name) || read_str(im, file, p->file, sizeof p->file) ||
        read_str(im, function, p->function, sizeof p->function))
        return -1;
    p->line = line;
    snprintf(p->kind, sizeof p->kind, "%s", kind_name(kind));
    p->on = kind == 3; /* BRANCH_ON starts on */
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

/* The edgeprobe_sites section, or NULL. */
static const Elf64_Shdr *sites_section(const image *im) {
    const Elf64_Shdr *names = section(im, im->eh->e_shstrndx);
    int i;
    for (i = 0; i < im->eh->e_shnum; i++) {
        const Elf64_Shdr *sh = section(im, i);
        if (names->sh_offset + sh->sh_name + 16 <= im->size &&
            !strcmp((const char *)im->data + names->sh_offset + sh->sh_name, "edgeprobe_sites"))
            return sh;
    }
    return NULL;
}

/* One row per point (in table order); a point with several records counts
 * them as sites. */
static int read_table(const image *im, const Elf64_Shdr *sh, const char *file, ctl_probe **out, int *n) {
    size_t nrec = sh->sh_size / REC_SIZE, i;
    uint64_t *points = calloc(nrec + 1, sizeof *points);
    *out = calloc(nrec + 1, sizeof **out);
    if (!points || !*out || !in_file(im, sh->sh_offset, sh->sh_size)) return -1;
    for (i = 0; i < nrec; i++) {
        const unsigned char *rec = im->data + sh->sh_offset + i * REC_SIZE;
        int32_t off;
        uint64_t point;
        int k;
        memcpy(&off, rec + 8, 4);
        point = sh->sh_addr + i * REC_SIZE + 8 + (int64_t)off;
        for (k = 0; k < *n && points[k] != point; k++) {}
        if (k < *n) {
            (*out)[k].sites++;
            continue;
        }
        if (read_point(im, point, &(*out)[k])) {
            fprintf(stderr, "edgeprobe list: %s: the descriptor of record %zu (at 0x%llx) cannot be read\n", file, i,
                    (unsigned long long)point);
            free(points);
            return -1;
        }
        points[k] = point;
        (*out)[k].id = k;
        (*out)[k].sites = 1;
        (*n)++;
    }
    free(points);
    return 0;
}

int elf_list(const char *file, ctl_probe **out, int *n) {
    image im;
    FILE *f = fopen(file, "rb");
    long size;
    const Elf64_Shdr *sh;
    unsigned char *data;
    int rc = -1;
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
    if (!(sh = sites_section(&im)) || sh->sh_size == 0) {
        rc = 0; /* no probes */
        goto done;
    }
    if (load_relocs(&im)) goto done;
    rc = read_table(&im, sh, file, out, n);
done:
    free(im.rel_at);
    free(im.rel_val);
    free(data);
    return rc;
}
