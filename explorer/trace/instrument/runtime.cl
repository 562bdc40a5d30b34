/* The trace runtime: what an instrumented kernel calls to record its accesses.
 *
 * Each work-item writes records into its own region of the trace buffer: the byte offset
 * of the access (roff) and one packed word (rword) holding site, phase, buffer, out-of-bounds
 * bit and log2 of the size. Every access is bounds-checked against the buffers of its address
 * space; an access outside all of them is recorded as out of bounds and redirected to a
 * scratch slot, so an indexing bug becomes a finding instead of a crash.
 *
 * The record layout is not written here: explorer/trace/records.py is its one source, and the
 * Python side defines __TR_NB (buffers traced), __TR_NO_BUFFER, __TR_MAX_PHASE and the
 * __TR_*_SHIFT constants in a generated prelude before this file.
 */

#if !defined(__TR_NB) || !defined(__TR_NO_BUFFER) || !defined(__TR_MAX_PHASE) \
    || !defined(__TR_PHASE_SHIFT) || !defined(__TR_BUFFER_SHIFT) || !defined(__TR_OOB_SHIFT) \
    || !defined(__TR_SIZE_SHIFT)
#error "the trace runtime needs the record layout defined before it (see runtime.py)"
#endif

typedef struct {
    __global uint* roff;
    __global uint* rword;
    ulong base;
    uint cap;
    uint n;
    uint phase;
    int on;
    uint wi;
    __global uint* cnt;
    __global ulong* meta;
    __global uchar* gdummy;
    __local uchar* ldummy;
    __global uchar* gb[__TR_NB];
    ulong gl[__TR_NB];
    __constant uchar* cb[__TR_NB];
    ulong cl[__TR_NB];
    __local uchar* lb[__TR_NB];
    ulong ll[__TR_NB];
} __tr_state;

static void __tr_put(__tr_state* st, uint site, uint buf, long off, uint size, uint oob)
{
    if (st == 0 || !st->on)
        return;
    if (st->n < st->cap) {
        uint code = 31u - clz(size);
        ulong i = st->base + st->n;
        st->roff[i] = (uint)(int)off;
        st->rword[i] =
            site | (min(st->phase, __TR_MAX_PHASE) << __TR_PHASE_SHIFT)
            | (buf << __TR_BUFFER_SHIFT) | (oob << __TR_OOB_SHIFT) | (code << __TR_SIZE_SHIFT);
    }
    st->n++;
}

static __global uchar* __tr_g(__tr_state* st, __global uchar* p, uint size, uint site, uint hint)
{
    if (st == 0)
        return p;
    if (hint < __TR_NB && st->gb[hint] != 0 && p >= st->gb[hint]
        && p + size <= st->gb[hint] + st->gl[hint]) {  /* most accesses: the named buffer */
        __tr_put(st, site, hint, (long)(p - st->gb[hint]), size, 0u);
        return p;
    }
    for (uint i = 0; i < __TR_NB; i++) {
        if (st->gb[i] != 0 && p >= st->gb[i] && p + size <= st->gb[i] + st->gl[i]) {
            __tr_put(st, site, i, (long)(p - st->gb[i]), size, 0u);
            return p;
        }
    }
    long off = (hint < __TR_NB && st->gb[hint] != 0) ? (long)(p - st->gb[hint]) : 0;
    __tr_put(st, site, hint, off, size, 1u);
    return st->gdummy;
}

static __constant uchar* __tr_c(__tr_state* st, __constant uchar* p, uint size, uint site,
                                uint hint)
{
    if (st == 0)
        return p;
    if (hint < __TR_NB && st->cb[hint] != 0 && p >= st->cb[hint]
        && p + size <= st->cb[hint] + st->cl[hint]) {  /* most accesses: the named buffer */
        __tr_put(st, site, hint, (long)(p - st->cb[hint]), size, 0u);
        return p;
    }
    for (uint i = 0; i < __TR_NB; i++) {
        if (st->cb[i] != 0 && p >= st->cb[i] && p + size <= st->cb[i] + st->cl[i]) {
            __tr_put(st, site, i, (long)(p - st->cb[i]), size, 0u);
            return p;
        }
    }
    long off = (hint < __TR_NB && st->cb[hint] != 0) ? (long)(p - st->cb[hint]) : 0;
    __tr_put(st, site, hint, off, size, 1u);
    return (hint < __TR_NB && st->cb[hint] != 0) ? st->cb[hint] : p;
}

static __local uchar* __tr_l(__tr_state* st, __local uchar* p, uint size, uint site, uint hint)
{
    if (st == 0)
        return p;
    if (hint < __TR_NB && st->lb[hint] != 0 && p >= st->lb[hint]
        && p + size <= st->lb[hint] + st->ll[hint]) {  /* most accesses: the named buffer */
        __tr_put(st, site, hint, (long)(p - st->lb[hint]), size, 0u);
        return p;
    }
    for (uint i = 0; i < __TR_NB; i++) {
        if (st->lb[i] != 0 && p >= st->lb[i] && p + size <= st->lb[i] + st->ll[i]) {
            __tr_put(st, site, i, (long)(p - st->lb[i]), size, 0u);
            return p;
        }
    }
    long off = (hint < __TR_NB && st->lb[hint] != 0) ? (long)(p - st->lb[hint]) : 0;
    __tr_put(st, site, hint, off, size, 1u);
    return st->ldummy;
}

static void __tr_barrier(__tr_state* st, uint site)
{
    __tr_put(st, site, __TR_NO_BUFFER, 0, 1u, 0u);
    if (st != 0)
        st->phase++;
}

static void __tr_fence(__tr_state* st, uint site)
{
    __tr_put(st, site, __TR_NO_BUFFER, 0, 1u, 0u);
}

static void __tr_end(__tr_state* st)
{
    if (st != 0 && st->on)
        st->cnt[st->wi] = st->n;
}

static void __tr_begin(__tr_state* st, __global uint* roff, __global uint* rword,
                       __global const ulong* off,
                       __global uint* cnt, volatile __global uint* disp,
                       __global const int* slot, __global ulong* meta,
                       __global uchar* gdummy, __local uchar* ldummy, uint count_only)
{
    uint gx = get_num_groups(0), gy = get_num_groups(1);
    uint group = get_group_id(0) + gx * (get_group_id(1) + gy * get_group_id(2));
    uint lx = get_local_size(0), ly = get_local_size(1);
    uint local_id = get_local_id(0) + lx * (get_local_id(1) + ly * get_local_id(2));
    uint per_group = lx * ly * get_local_size(2);
    if (local_id == 0)
        disp[1 + group] = atomic_inc(&disp[0]);
    int s = slot[group];
    st->on = s >= 0;
    st->wi = st->on ? (uint)s * per_group + local_id : 0u;
    st->roff = roff;
    st->rword = rword;
    st->base = st->on ? off[st->wi] : 0ul;
    st->cap = (st->on && !count_only) ? (uint)(off[st->wi + 1] - off[st->wi]) : 0u;
    st->n = 0u;
    st->phase = 0u;
    st->cnt = cnt;
    st->meta = meta;
    st->gdummy = gdummy;
    st->ldummy = ldummy;
    for (uint i = 0; i < __TR_NB; i++) {
        st->gb[i] = 0; st->gl[i] = 0; st->cb[i] = 0; st->cl[i] = 0; st->lb[i] = 0; st->ll[i] = 0;
    }
}

static void __tr_describe(__tr_state* st, uint id, ulong elem, ulong bytes, ulong d0, ulong d1,
                      ulong d2, ulong d3)
{
    if (st->on && st->wi == 0) {
        __global ulong* m = st->meta + 8 * id;
        m[0] = elem; m[1] = bytes; m[2] = d0; m[3] = d1; m[4] = d2; m[5] = d3;
    }
}

#define __TR_G(P, SITE, HINT) ((__typeof__(P)) __tr_g(__tr_ptr, (__global uchar*)(P), \
    (uint)sizeof(*(P)), SITE, HINT))
#define __TR_C(P, SITE, HINT) ((__typeof__(P)) __tr_c(__tr_ptr, (__constant uchar*)(P), \
    (uint)sizeof(*(P)), SITE, HINT))
#define __TR_L(P, SITE, HINT) ((__typeof__(P)) __tr_l(__tr_ptr, (__local uchar*)(P), \
    (uint)sizeof(*(P)), SITE, HINT))
#define __TR_VG(P, W, SITE, HINT) ((__typeof__(P)) __tr_g(__tr_ptr, (__global uchar*)(P), \
    (uint)((W) * sizeof(*(P))), SITE, HINT))
#define __TR_VC(P, W, SITE, HINT) ((__typeof__(P)) __tr_c(__tr_ptr, (__constant uchar*)(P), \
    (uint)((W) * sizeof(*(P))), SITE, HINT))
#define __TR_VL(P, W, SITE, HINT) ((__typeof__(P)) __tr_l(__tr_ptr, (__local uchar*)(P), \
    (uint)((W) * sizeof(*(P))), SITE, HINT))
