/* addr_map.c — see addr_map.h. */
#include "addr_map.h"
#include "pages.h"

#include <stdlib.h>

static void put(instr_addr_slot *slots, unsigned bits, uintptr_t key, uint32_t value)
{
    uint32_t i = instr_hash_bits(key, bits);
    while (slots[i].key)
        i = (i + 1) & ((1u << bits) - 1);
    __atomic_store_n(&slots[i].value, value, __ATOMIC_RELAXED);
    __atomic_store_n(&slots[i].key, key, __ATOMIC_RELEASE);
}

int instr_addr_map_reserve(instr_addr_map *m, unsigned first_bits, unsigned max_bits)
{
    if (m->slots && 2 * ((uint64_t)m->fill + 1) <= (1ull << m->bits))
        return 0;
    if (m->slots && m->bits >= max_bits)
        return m->fill < instr_addr_map_max_fill(m->bits) ? 0 : -1;
    unsigned bits = m->slots ? m->bits + 1 : first_bits;
    instr_addr_slot *grown = instr_mem_calloc((size_t)1 << bits, sizeof *grown);
    if (!grown)
        return -1;
    if (m->slots) {
        for (size_t i = 0; i < ((size_t)1 << m->bits); i++)
            if (m->slots[i].key)
                put(grown, bits, m->slots[i].key, m->slots[i].value);
        instr_mem_free(m->slots);
    }
    m->bits = bits;
    __atomic_store_n(&m->slots, grown, __ATOMIC_RELEASE);
    return 0;
}

int instr_addr_map_insert(instr_addr_map *m, uintptr_t key, uint32_t value,
                          unsigned first_bits, unsigned max_bits)
{
    if (instr_addr_map_reserve(m, first_bits, max_bits) != 0)
        return -1;
    put(m->slots, m->bits, key, value);
    m->fill++;
    return 0;
}
