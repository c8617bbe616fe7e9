/* tools/control_elf.c - list the probes of an ELF file without running it.
 *
 * The table (include/edgeprobe.h, >>markers) is the section edgeprobe_sites:
 * records laid out as the header's edgeprobe__record, each address an offset
 * from its own field, so the file holds every value as it is (no
 * relocation). Records that share a mark are the sites of one point (one
 * source-level marker, inlined or unrolled). */
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
    rc = read_table(&im, sh, file, out, n);
done:
    free(data);
    return rc;
}
