/* hb_prng.h - the one PRNG of hotbench's generators and tests: splitmix64 and its keyed streams.
 *
 * Everything here is a pure function of its arguments (the state lives with the caller), the same
 * on every machine: a generator's bytes follow from its parameters and seed alone (STYLE.md 9).
 * Never use rand() or a time seed instead.
 */
#ifndef HB_PRNG_H
#define HB_PRNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014; the finaliser of Java's SplittableRandom): the state is advanced by the golden gamma
 * 0x9e3779b97f4a7c15 (2^64 / phi, odd) and the new state is mixed into the returned value.
 * *state: the caller's 64-bit state, any value (0 included); period 2^64. */
static inline uint64_t hb_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* The starting state of independent stream k of seed: seed ^ (k * an odd 64-bit multiplier), so
 * different k give far-apart states. Used as a state by generators that draw several values per
 * key (timestamps: key = value index). */
static inline uint64_t hb_prng_key(uint64_t seed, uint64_t k)
{
    return seed ^ (k * 0xd1b54a32d192ed03u);
}

/* The first output of stream k of seed (hb_splitmix64 of hb_prng_key(seed, k)): the seed of one
 * of a generator's independent streams (chunked: content, chunk sizes, user-id hash; volumes:
 * the response and each volume), so that changing one stream never changes another. */
static inline uint64_t hb_prng_stream(uint64_t seed, uint64_t k)
{
    uint64_t s = hb_prng_key(seed, k);
    return hb_splitmix64(&s);
}

#ifdef __cplusplus
}
#endif

#endif /* HB_PRNG_H */
