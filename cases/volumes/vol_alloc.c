/* vol_alloc.c - the memory of a decoded result: the counting allocator (hb_vm_alloc, _realloc,
 * _free, the context-free hooks for expat and libxml2 bound per thread by hb_vm_bind, the
 * poisoned-heap switch), the arena's new chunks (hb_vm_arena_grow: doubling from 16 KiB to
 * 1 MiB; the bump itself, hb_vm_arena, is inline in volumes_impl.h) and hb_volumes_free, which
 * releases a result's structs, strings, arrays and arena chunks through them. Everything
 * counts into hb_volumes.mem (see volumes_impl.h).
 */
#include "hb_volumes.h"
#include "volumes_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the counting allocator ------------------------------------------------------------------ */

#define VM_HEADER 16 /* keeps the malloc alignment */

static void vm_count(hb_volumes *v, size_t add, size_t sub)
{
    if (!v)
        return;
    v->mem.allocations += add ? 1 : 0;
    v->mem.bytes += add;
    v->live_ = v->live_ + add - sub;
    if (v->live_ > v->mem.peak_bytes)
        v->mem.peak_bytes = v->live_;
}

/* hb_volumes_set_poisoned_heap's switch: thread-local, like vm_bound below. */
static _Thread_local int vm_poisoned;

void hb_volumes_set_poisoned_heap(int on)
{
    vm_poisoned = on != 0;
}

void *hb_vm_alloc(hb_volumes *v, size_t n)
{
    if (n > SIZE_MAX - VM_HEADER)
        return NULL;
    unsigned char *p = malloc(n + VM_HEADER);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    vm_count(v, n ? n : 1, 0);
    return p + VM_HEADER;
}

void *hb_vm_realloc(hb_volumes *v, void *q, size_t n)
{
    if (!q)
        return hb_vm_alloc(v, n);
    if (n > SIZE_MAX - VM_HEADER)
        return NULL;
    unsigned char *p = (unsigned char *)q - VM_HEADER;
    size_t old;
    memcpy(&old, p, sizeof old);
    unsigned char *np = vm_poisoned ? malloc(n + VM_HEADER) : realloc(p, n + VM_HEADER);
    if (!np)
        return NULL;
    if (vm_poisoned) {
        memcpy(np + VM_HEADER, p + VM_HEADER, old < n ? old : n);
        free(p);
    }
    memcpy(np, &n, sizeof n);
    vm_count(v, n ? n : 1, old ? old : 1);
    return np + VM_HEADER;
}

void hb_vm_free(hb_volumes *v, void *q)
{
    if (!q)
        return;
    unsigned char *p = (unsigned char *)q - VM_HEADER;
    size_t old;
    memcpy(&old, p, sizeof old);
    if (v)
        v->live_ -= old ? old : 1;
    free(p);
}

static _Thread_local hb_volumes *vm_bound;

hb_volumes *hb_vm_bind(hb_volumes *v)
{
    hb_volumes *prev = vm_bound;
    vm_bound = v;
    return prev;
}

void *hb_vm_hook_malloc(size_t n)
{
    return hb_vm_alloc(vm_bound, n);
}

void *hb_vm_hook_realloc(void *p, size_t n)
{
    return hb_vm_realloc(vm_bound, p, n);
}

void hb_vm_hook_free(void *p)
{
    hb_vm_free(vm_bound, p);
}

/* ---- the arena ------------------------------------------------------------------------------- */

#define VM_CHUNK_MIN (16u << 10)
#define VM_CHUNK_MAX (1u << 20)

void *hb_vm_arena_grow(hb_volumes *v, size_t n)
{
    hb_vm_chunk *c = v->arena_;
    size_t cap = c ? (c->cap < VM_CHUNK_MAX ? c->cap * 2 : VM_CHUNK_MAX) : VM_CHUNK_MIN;
    if (cap < n)
        cap = n;
    if (cap > SIZE_MAX - sizeof *c)
        return NULL;
    hb_vm_chunk *nc = hb_vm_alloc(v, sizeof *nc + cap);
    if (!nc)
        return NULL;
    nc->next = c;
    nc->cap = cap;
    nc->used = n;
    v->arena_ = nc;
    return nc->data;
}

/* ---- releasing a result ---------------------------------------------------------------------- */

static void free_str(hb_volumes *v, hb_vol_str *s)
{
    hb_vm_free(v, (void *)s->s);
    s->s = NULL;
}

void hb_volumes_free(hb_volumes *v)
{
    if (!v)
        return;
    if (v->owns_strings_) {
        for (size_t i = 0; i < v->nvolumes; i++) {
            hb_volume *vol = v->volumes[i];
            free_str(v, &vol->volume_id);
            free_str(v, &vol->snapshot_id);
            free_str(v, &vol->availability_zone);
            free_str(v, &vol->status);
            free_str(v, &vol->create_time);
            free_str(v, &vol->volume_type);
            for (size_t a = 0; a < vol->nattachments; a++) {
                hb_vol_attachment *at = vol->attachments[a];
                free_str(v, &at->volume_id);
                free_str(v, &at->instance_id);
                free_str(v, &at->device);
                free_str(v, &at->status);
                free_str(v, &at->attach_time);
                hb_vm_free(v, at);
            }
            hb_vm_free(v, vol->attachments);
            for (size_t t = 0; t < vol->ntags; t++) {
                free_str(v, &vol->tags[t]->key);
                free_str(v, &vol->tags[t]->value);
                hb_vm_free(v, vol->tags[t]);
            }
            hb_vm_free(v, vol->tags);
            hb_vm_free(v, vol);
        }
        free_str(v, &v->request_id);
        free_str(v, &v->next_token);
    }
    hb_vm_free(v, v->volumes);
    hb_vm_chunk *c = v->arena_;
    while (c) {
        hb_vm_chunk *next = c->next;
        hb_vm_free(v, c);
        c = next;
    }
    memset(v, 0, sizeof *v);
}
