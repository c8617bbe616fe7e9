/* tests/fprobe/mirror_pages.S - gcc-form entries (five one-byte NOPs) at
 * chosen places, for t_mirror_pages.c. A mirror stub lies 0x6f6f6f6b below
 * its entry; that offset ends in 0xf6b within a page, so an entry at page
 * offset 0xf68 has its 5-byte stub at 0xffd of the page below: across two
 * mirror pages.
 *   mp_one    at 0xf00 of page 0: its stub in one mirror page, P
 *   mp_two    at 0xf68 of page 0: stub across P | Q
 *   mp_three  at 0xf68 of page 1: stub across Q | R
 *   mp_line   at 0x3d of a cache line in page 2: its five bytes straddle
 *             the line, so a scan under EDGEPROBE_FUNC_BULK leaves it in
 *             the one-byte form (a NOP5 there would need the straddler
 *             protocol)
 * Each returns its number. */
        .section .text.mirror_pages,"ax",@progbits
        .p2align 12
        .org 0xf00
        .globl mp_one
        .type mp_one,@function
mp_one: .byte 0x90,0x90,0x90,0x90,0x90
        movl $1,%eax
        ret
        .size mp_one,.-mp_one
        .org 0xf68
        .globl mp_two
        .type mp_two,@function
mp_two: .byte 0x90,0x90,0x90,0x90,0x90
        movl $2,%eax
        ret
        .size mp_two,.-mp_two
        .org 0x1f68
        .globl mp_three
        .type mp_three,@function
mp_three: .byte 0x90,0x90,0x90,0x90,0x90
        movl $3,%eax
        ret
        .size mp_three,.-mp_three
        .org 0x203d
        .globl mp_line
        .type mp_line,@function
mp_line: .byte 0x90,0x90,0x90,0x90,0x90
        movl $4,%eax
        ret
        .size mp_line,.-mp_line
        .org 0x3000
        .section __patchable_function_entries,"aw",@progbits
        .p2align 3
        .quad mp_one, mp_two, mp_three, mp_line
        .section .note.GNU-stack,"",@progbits
