/* hash.h — the runtime's hash functions, so that every table mixes its keys alike.
 *
 * instr_hash_bits: Fibonacci hashing of a word (an address, an id) onto 2^bits slots: the
 * top bits of its product with 2^64 / golden ratio, which spreads aligned keys.
 * instr_hash_mix: the 64-bit finaliser of MurmurHash3, for keys built from several fields.
 * instr_fnv1a: FNV-1a over bytes and strings (stable across processes and runs: ranks of a
 * job compare them). All inline: the cyg adapter's lookup probes with instr_hash_bits. */
#ifndef INSTR_UTIL_HASH_H
#define INSTR_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define INSTR_HASH_GOLDEN 0x9e3779b97f4a7c15ull
#define INSTR_FNV1A_BASIS 0xcbf29ce484222325ull
#define INSTR_FNV1A_PRIME 0x100000001b3ull

/* bits: 1 to 32. */
static inline uint32_t instr_hash_bits(uint64_t k, unsigned bits)
{
    return (uint32_t)((k * INSTR_HASH_GOLDEN) >> (64 - bits));
}

static inline uint64_t instr_hash_mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static inline uint64_t instr_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * INSTR_FNV1A_PRIME;
    return h;
}

/* Over the bytes of s up to its NUL (excluded). */
static inline uint64_t instr_fnv1a_str(uint64_t h, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        h = (h ^ *c) * INSTR_FNV1A_PRIME;
    return h;
}

#endif
