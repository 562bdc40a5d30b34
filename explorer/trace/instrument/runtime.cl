/* The trace runtime: what an instrumented kernel calls to record its accesses.
 *
 * Each work-item writes records into its own region of the trace buffer: the byte offset
 * of the access (roff) and one packed word (rword) holding site, phase, buffer, out-of-bounds
 * bit and log2 of the size. Every access is bounds-checked against the buffers of its address
 * space; an access outside all of them is recorded as out of bounds and redirected to a
 * scratch slot, so an indexing bug becomes a finding instead of a crash.
 *
 * The record layout is not written here: explorer/trace/recorded.py is its one source, and the
 * Python side defines __TR_NB (buffers traced), __TR_NO_BUFFER, __TR_MAX_PHASE and the
 * __TR_*_SHIFT constants in a generated prelude before this file.
 *
 * Barrier divergence. A barrier that only some work-items of a group reach is undefined
 * behaviour: PoCL mis-executes it (work-items run code they cannot reach) or crashes, and a
 * GPU may hang. So the trace build never trusts the real barrier blindly: each work-item
 * counts its own arrivals at every barrier site (bar_seen), and __tr_end folds them into a
 * per-group minimum and maximum (__tr_bar). The counting launch runs a build without real
 * barriers (__TR_NO_BARRIERS defined; __TR_BARRIER records the barrier and nothing more):
 * every work-item then follows only its own control flow, so nothing crashes and no
 * work-item runs a line it cannot reach. Where any group's minimum and maximum differ, the
 * recording launch runs that build too and the records show the divergence at the
 * barrier's line; otherwise it runs the build with the real barriers, as the kernel was
 * written. On a CPU these are two builds; elsewhere (a GPU) they are one program with a
 * run-time switch (__TR_SWITCH_BARRIERS defined): each barrier runs unless the launch's mode
 * says to skip them all (the same for every work-item of the launch, so no barrier is ever
 * reached by part of a group), and the program then counts and records exactly as the
 * build without barriers does. A CPU keeps the two builds: PoCL turns a barrier under a
 * condition that depends on the work-item into a work-group function that runs wrong even
 * where the switch leaves the barrier unexecuted (tests/engine/test_trace_one_build.py), and
 * docs/benchmarks.md has what the switch costs where it runs right. (Why not a check at the barrier itself: a
 * work-item that does not reach the barrier is somewhere else, so no point before the
 * barrier is reached by all.) Only a launch without barriers folds the arrivals (in
 * __tr_end); a launch with real barriers does not need them.
 *
 * An opaque zero. The address of a __local variable is a link-time constant; passed to the
 * runtime as such (`&total` of a scalar `__local float total;`, or `tile[0]`), PoCL 3.0's
 * LLVM 14 crashes in aggressive dead-code elimination while it builds the work-group
 * function. Local pointers therefore go to the runtime plus `zero`, a kernel argument that is
 * always 0 but that no compiler can fold.
 *
 * Values (built with __TR_VALUES). A third plane holds, per record, the bits of the value the
 * access read or stored (__TR_VALUE_T: uint, or ulong when the kernel accesses 8-byte values).
 * The value comes from the expression itself, never from memory afterwards: a load's result,
 * an assignment's value (the stored value), an atomic's return. The instrumentation wraps
 * that expression in a typed __tr_v_* function generated beside this runtime, which calls
 * __tr_val with the site's id. Its record was made when the address was computed, before the
 * value existed; records the other side of an assignment made meanwhile come after it, so
 * the latest record of that site is the one (no recursion in OpenCL C: a site is never
 * waiting for its value twice at once).
 */

#if !defined(__TR_NB) || !defined(__TR_NO_BUFFER) || !defined(__TR_MAX_PHASE) \
    || !defined(__TR_PHASE_SHIFT) || !defined(__TR_BUFFER_SHIFT) || !defined(__TR_OOB_SHIFT) \
    || !defined(__TR_SIZE_SHIFT)
#error "the trace runtime needs the record layout defined before it (see runtime.py)"
#endif
#if defined(__TR_VALUES) && (!defined(__TR_VALUE_T) || !defined(__TR_SITE_MASK))
#error "a trace build with values needs __TR_VALUE_T and __TR_SITE_MASK (see runtime.py)"
#endif

/* How the recording helpers are compiled. For a GPU not inlined: NVIDIA's compiler otherwise
 * copies each helper's bounds checks into every access site of the kernel, and an unrolled
 * kernel with a few hundred sites took it over six minutes to build. For a CPU (the compiler
 * targets the host's own architecture, as PoCL's does) inlined: PoCL runs a work-group as a
 * loop over its work-items, and a call per access inside that loop made the trace builds of
 * the unrolled matmul kernels compile three to six times slower. Either way one call per
 * access records exactly the same. Helpers that ask for the work-item's ids (__tr_begin, the
 * async copies) are always inline: PoCL only finds those calls in the kernel's own body.
 * __tr_val, which may walk back over the records, is never inlined. */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__) \
    || defined(__powerpc64__) || defined(__riscv)
#define __TR_HELPER
#define __TR_CPU 1
#else
#define __TR_HELPER __attribute__((noinline))
#endif

/* One program both with and without barriers, switched by the launch (see the top). */
#if defined(__TR_SWITCH_BARRIERS) && !defined(__TR_NO_BARRIERS)
#define __TR_SWITCHED 1
#define __TR_SKIP(st) ((st) != 0 && (st)->skip)
#endif

/* The barrier at the kernel's one end (__tr_end says why): in a CPU's build with real
 * barriers only (in a launch that runs them). A GPU needs none, and one there would wait
 * for ever where part of a group is inside a group operation that no barrier count shows
 * (a copy under a condition). */
#if defined(__TR_CPU) && defined(__TR_SWITCHED)
#define __TR_EXIT_BARRIER() if (!__TR_SKIP(__tr_ptr)) barrier(CLK_LOCAL_MEM_FENCE)
#elif defined(__TR_CPU) && !defined(__TR_NO_BARRIERS)
#define __TR_EXIT_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#else
#define __TR_EXIT_BARRIER()
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
    __private uchar* pdummy;
    __global uint* bar;
    uint counting;
    uint skip; /* the launch runs no barrier (__TR_SWITCHED) */
    uint zero;
    uint slot;
    uint bar_seen[__TR_NBAR];
    uint pend_buf;
    long pend_off;
    uint pend_size;
    uint pend_oob;
    long keep;
    __global uchar* gb[__TR_NB];
    ulong gl[__TR_NB];
    __constant uchar* cb[__TR_NB];
    ulong cl[__TR_NB];
    __local uchar* lb[__TR_NB];
    ulong ll[__TR_NB];
    __global const ulong* modes;
#ifdef __TR_VALUES
    __global __TR_VALUE_T* rval;
    uint last_site;
#endif
} __tr_state;

/* The opaque zero (see the note at the top); 0 in a kernel that is not traced. */
static uint __tr_z(__tr_state* st)
{
    return st != 0 ? st->zero : 0u;
}

/* An offset out of bounds that a record's 32 bits cannot hold: a uint index that wrapped
 * below zero reaches 16 GiB past the start of a float buffer on a 64-bit device, whose low
 * 32 bits read as -4 (one element before the start, which it is not). Its record holds
 * __TR_FAR_PAST (INT_MAX: as far past the start as a record says, or further) or
 * __TR_FAR_BEFORE (INT_MIN); the buffer's words 6-9 of meta (trace/recorded.py: META_WORDS)
 * the offset of the first work-item to come, whether one came, and the least and the
 * greatest of their offsets' low and high halves: whether every one reached the same element
 * is known whatever order the work-items ran in. (A first offset and a flag set by those
 * that found another one there missed the other one where the two came at once, as two
 * work-items of a warp do: the first had not written its offset yet.) */
#define __TR_FAR_PAST 2147483647L
#define __TR_FAR_BEFORE (-2147483647L - 1L)

static void __tr_far(__tr_state* st, uint buf, long off)
{
    if (buf >= __TR_NB)
        return;
    __global ulong* m = st->meta + __TR_META * buf + 6;
    volatile __global uint* came = (volatile __global uint*)(m + 1);
    volatile __global uint* least = (volatile __global uint*)(m + 2);
    volatile __global uint* most = (volatile __global uint*)(m + 3);
    uint low = (uint)((ulong)off), high = (uint)((ulong)off >> 32);
    atomic_min(&least[0], low);
    atomic_min(&least[1], high);
    atomic_max(&most[0], low);
    atomic_max(&most[1], high);
    if (atomic_cmpxchg(&came[0], 0u, 1u) == 0u)
        m[0] = (ulong)off;
}

static __TR_HELPER void __tr_put(__tr_state* st, uint site, uint buf, long off, uint size, uint oob)
{
    if (st == 0 || !st->on)
        return;
    if (oob && (off >= __TR_FAR_PAST || off <= __TR_FAR_BEFORE)) {
        __tr_far(st, buf, off);
        off = off > 0 ? __TR_FAR_PAST : __TR_FAR_BEFORE;
    }
    if (st->n < st->cap) {
        uint code = 31u - clz(size);
        ulong i = st->base + st->n;
        st->roff[i] = (uint)(int)off;
        st->rword[i] =
            site | (min(st->phase, __TR_MAX_PHASE) << __TR_PHASE_SHIFT)
            | (buf << __TR_BUFFER_SHIFT) | (oob << __TR_OOB_SHIFT) | (code << __TR_SIZE_SHIFT);
#ifdef __TR_VALUES
        st->rval[i] = 0;  /* until the access's value comes (barriers: for good) */
#endif
    }
    st->n++;
#ifdef __TR_VALUES
    st->last_site = site;
#endif
}

#ifdef __TR_VALUES
/* The value of the latest record of `site` (see the note at the top). Nothing when a record
 * was dropped (the region is full: which one is the site's is no longer known). */
static __attribute__((noinline)) void __tr_val(__tr_state* st, uint site, ulong bits)
{
    if (st == 0 || !st->on || st->n > st->cap || st->n == 0u)
        return;
    if (st->last_site == site) {
        st->rval[st->base + st->n - 1u] = (__TR_VALUE_T)bits;
        return;
    }
    for (uint i = st->n; i > 0u; i--) {
        ulong at = st->base + i - 1u;
        if ((st->rword[at] & __TR_SITE_MASK) == site) {
            st->rval[at] = (__TR_VALUE_T)bits;
            return;
        }
    }
}

/* Components of a vector stored (vstoreN, `*p4 = v`, `+=`) that its record's value has no
 * room for: a record of its own after the store's (ROLE_PARTS in trace/recorded.py), whose
 * offset is the store's site (`owner`: its latest record is the store's) times 16 plus the
 * number of its first component, the components' bits as its value. Records of other
 * accesses may come between (`C[i] = A[j]`: A's may be made after C's, and C's value is
 * known only once both are), so the owner is named, not taken to be the record before. */
static void __tr_part(__tr_state* st, uint site, uint owner, uint first, ulong bits)
{
    __tr_put(st, site, __TR_NO_BUFFER, (long)(owner * 16u + first), 1u, 0u);
    __tr_val(st, site, bits);
}
#endif

/* A record, or with `pend` (a constant at every call, so the test folds away) the record a
 * compare-and-swap will make once its outcome is known (__tr_cas_done). */
static void __tr_rec(__tr_state* st, uint pend, uint site, uint buf, long off, uint size,
                     uint oob)
{
    if (!pend) {
        __tr_put(st, site, buf, off, size, oob);
    } else if (st != 0 && st->on) {
        st->pend_buf = buf; st->pend_off = off; st->pend_size = size; st->pend_oob = oob;
    }
}

static __TR_HELPER __global uchar* __tr_gx(__tr_state* st, __global uchar* p, uint at, uint size,
                              uint site, uint hint, uint pend)
{
    if (st == 0)
        return p;
    __global uchar* q = p + at;
    if (hint < __TR_NB && st->gb[hint] != 0 && q >= st->gb[hint]
        && q + size <= st->gb[hint] + st->gl[hint]) {  /* most accesses: the named buffer */
        __tr_rec(st, pend, site, hint, (long)(q - st->gb[hint]), size, 0u);
        return p;
    }
    uint near = __TR_NO_BUFFER;
    for (uint i = 0; i < __TR_NB; i++) {
        if (st->gb[i] != 0 && q >= st->gb[i] && q + size <= st->gb[i] + st->gl[i]) {
            __tr_rec(st, pend, site, i, (long)(q - st->gb[i]), size, 0u);
            return p;
        }
        if (st->gb[i] != 0 && q >= st->gb[i]
            && (near == __TR_NO_BUFFER || st->gb[i] > st->gb[near]))
            near = i;  /* an access past a buffer's end is blamed on that buffer */
    }
    uint blame = (hint < __TR_NB && st->gb[hint] != 0) ? hint : near;
    long off = (blame < __TR_NB) ? (long)(q - st->gb[blame]) : 0;
    __tr_rec(st, pend, site, blame, off, size, 1u);
    return st->gdummy;
}

static __global uchar* __tr_g(__tr_state* st, __global uchar* p, uint size, uint site, uint hint)
{
    return __tr_gx(st, p, 0u, size, site, hint, 0u);
}

static __TR_HELPER __constant uchar* __tr_cx(__tr_state* st, __constant uchar* p, uint at, uint size,
                              uint site, uint hint, uint pend)
{
    if (st == 0)
        return p;
    __constant uchar* q = p + at;
    if (hint < __TR_NB && st->cb[hint] != 0 && q >= st->cb[hint]
        && q + size <= st->cb[hint] + st->cl[hint]) {  /* most accesses: the named buffer */
        __tr_rec(st, pend, site, hint, (long)(q - st->cb[hint]), size, 0u);
        return p;
    }
    uint near = __TR_NO_BUFFER;
    for (uint i = 0; i < __TR_NB; i++) {
        if (st->cb[i] != 0 && q >= st->cb[i] && q + size <= st->cb[i] + st->cl[i]) {
            __tr_rec(st, pend, site, i, (long)(q - st->cb[i]), size, 0u);
            return p;
        }
        if (st->cb[i] != 0 && q >= st->cb[i]
            && (near == __TR_NO_BUFFER || st->cb[i] > st->cb[near]))
            near = i;  /* an access past a buffer's end is blamed on that buffer */
    }
    uint blame = (hint < __TR_NB && st->cb[hint] != 0) ? hint : near;
    long off = (blame < __TR_NB) ? (long)(q - st->cb[blame]) : 0;
    __tr_rec(st, pend, site, blame, off, size, 1u);
    return (hint < __TR_NB && st->cb[hint] != 0) ? st->cb[hint] : p;
}

static __constant uchar* __tr_c(__tr_state* st, __constant uchar* p, uint size, uint site,
                               uint hint)
{
    return __tr_cx(st, p, 0u, size, site, hint, 0u);
}

static __TR_HELPER __local uchar* __tr_lx(__tr_state* st, __local uchar* p, uint at, uint size,
                              uint site, uint hint, uint pend)
{
    if (st == 0)
        return p;
    __local uchar* q = p + at;
    if (hint < __TR_NB && st->lb[hint] != 0 && q >= st->lb[hint]
        && q + size <= st->lb[hint] + st->ll[hint]) {  /* most accesses: the named buffer */
        __tr_rec(st, pend, site, hint, (long)(q - st->lb[hint]), size, 0u);
        return p;
    }
    uint near = __TR_NO_BUFFER;
    for (uint i = 0; i < __TR_NB; i++) {
        if (st->lb[i] != 0 && q >= st->lb[i] && q + size <= st->lb[i] + st->ll[i]) {
            __tr_rec(st, pend, site, i, (long)(q - st->lb[i]), size, 0u);
            return p;
        }
        if (st->lb[i] != 0 && q >= st->lb[i]
            && (near == __TR_NO_BUFFER || st->lb[i] > st->lb[near]))
            near = i;  /* an access past a buffer's end is blamed on that buffer */
    }
    uint blame = (hint < __TR_NB && st->lb[hint] != 0) ? hint : near;
    long off = (blame < __TR_NB) ? (long)(q - st->lb[blame]) : 0;
    __tr_rec(st, pend, site, blame, off, size, 1u);
    return st->ldummy;
}

static __local uchar* __tr_l(__tr_state* st, __local uchar* p, uint size, uint site, uint hint)
{
    return __tr_lx(st, p, 0u, size, site, hint, 0u);
}

/* An access through a pointer not aligned for its type (a float4 read one float past a
 * 16-byte boundary): a device may fault on it (PoCL's unoptimised build does: an aligned vector
 * load) or read other bytes than those named. It is recorded as skipped, the out-of-bounds bit
 * set on an offset inside its buffer (the analysis tells a misaligned access apart by that),
 * and redirected to the aligned scratch slot, as an access out of bounds is. */
static void __tr_misaligned(__tr_state* st, uint before)
{
    if (st != 0 && st->on && st->n == before + 1u && before < st->cap)
        st->rword[st->base + before] |= (1u << __TR_OOB_SHIFT);
}

static __TR_HELPER __global uchar* __tr_ga(__tr_state* st, __global uchar* p, uint size,
                                           uint align, uint site, uint hint)
{
    if (st == 0 || ((ulong)p & (ulong)(align - 1u)) == 0u)
        return __tr_gx(st, p, 0u, size, site, hint, 0u);
    uint before = st->n;
    if (__tr_gx(st, p, 0u, size, site, hint, 0u) == p)
        __tr_misaligned(st, before);
    return st->gdummy;
}

static __TR_HELPER __constant uchar* __tr_ca(__tr_state* st, __constant uchar* p, uint size,
                                             uint align, uint site, uint hint)
{
    if (st == 0 || ((ulong)p & (ulong)(align - 1u)) == 0u)
        return __tr_cx(st, p, 0u, size, site, hint, 0u);
    uint before = st->n;
    __constant uchar* q = __tr_cx(st, p, 0u, size, site, hint, 0u);
    if (q != p)
        return q;  /* out of bounds as well: already redirected */
    __tr_misaligned(st, before);
    return (hint < __TR_NB && st->cb[hint] != 0) ? st->cb[hint] : p - ((ulong)p & (ulong)(align - 1u));
}

static __TR_HELPER __local uchar* __tr_la(__tr_state* st, __local uchar* p, uint size,
                                          uint align, uint site, uint hint)
{
    if (st == 0 || ((ulong)p & (ulong)(align - 1u)) == 0u)
        return __tr_lx(st, p, 0u, size, site, hint, 0u);
    uint before = st->n;
    if (__tr_lx(st, p, 0u, size, site, hint, 0u) == p)
        __tr_misaligned(st, before);
    return st->ldummy;
}

/* A selection of a vector in memory whose components are not side by side, or not a power
 * of two of them (`.odd`, `.xz`, `.wx`, `.xyz`): one record per component, bit c of `mask`
 * for component c of `scalar` bytes, through the space's own check (__tr_gx, __tr_cx,
 * __tr_lx). The access goes through `p` unless a component fell outside every buffer (then
 * where that component's check sends it). */
#define __TR_BY_COMPONENT(SPACE, NAME, CHECK)                                                \
    static __TR_HELPER SPACE uchar* NAME(__tr_state* st, SPACE uchar* p, uint mask,          \
                                         uint scalar, uint site, uint hint)                  \
    {                                                                                        \
        SPACE uchar* r = p;                                                                  \
        for (uint c = 0u; mask != 0u; c++, mask >>= 1) {                                     \
            SPACE uchar* q = (mask & 1u) ? CHECK(st, p, c * scalar, scalar, site, hint, 0u) \
                                         : p;                                                \
            if (q != p)                                                                      \
                r = q;                                                                       \
        }                                                                                    \
        return r;                                                                            \
    }
__TR_BY_COMPONENT(__global, __tr_gxm, __tr_gx)
__TR_BY_COMPONENT(__constant, __tr_cxm, __tr_cx)
__TR_BY_COMPONENT(__local, __tr_lxm, __tr_lx)

/* A private array's element: only an access out of the array's bytes is recorded (no other
 * work-item can see private memory), and it goes to a scratch slot instead. */
static __TR_HELPER __private uchar* __tr_p(__tr_state* st, __private uchar* p, uint size,
                               __private uchar* base, uint bytes, uint site, uint buf)
{
    if (st == 0 || (p >= base && p + size <= base + bytes))
        return p;
    __tr_put(st, site, buf, (long)(p - base), size, 1u);
    return st->pdummy;
}

/* A private array's element as __tr_p checks it, and, for an array with a shadow (a byte per
 * element, instrument/shadows.py), whether the work-item wrote it: `mode` bit 0, the access
 * reads (an element not yet written makes one record at `unset`, then counts as written so it
 * is reported once); bit 1, it writes. `elem` is the array's element size; `left` counts the
 * elements not yet written (the instrumented access calls __tr_p instead once it is 0). A read of an
 * element already written stores nothing: the check costs one load where the array sits in
 * a hot loop. Sizes and modes are constants at each call, so on a CPU (inlined) the common
 * case, one element, keeps no loop. */
static __TR_HELPER __private uchar* __tr_ps(__tr_state* st, __private uchar* p, uint size,
                                            __private uchar* base, uint bytes, uint site,
                                            uint buf, __private uchar* shadow, uint elem,
                                            uint mode, uint unset, __private uint* left)
{
    if (st == 0)
        return p;
    if (!(p >= base && p + size <= base + bytes)) {
        __tr_put(st, site, buf, (long)(p - base), size, 1u);
        return st->pdummy;
    }
    uint off = (uint)(p - base);
    uint first = off / elem, last = size <= elem ? first : (off + size - 1u) / elem;
    for (uint e = first; e <= last; e++) {
        if (shadow[e] != 0u)
            continue;
        if (mode & 1u) {
            /* the first unwritten element (or component) of those read is the one named */
            __tr_put(st, unset, __TR_NO_BUFFER, (long)(e * elem), elem, 0u);
            mode = 2u;
        }
        shadow[e] = 1u;
        *left -= 1u;
    }
    return p;
}

/* __tr_ps for a selection of components (`w[k].y`, `.xy`, `.odd`) of a vector element `p` of
 * an array whose shadow has a byte per component (`slot` bytes each): bit c of `mask`, component
 * c. The bounds are checked on the whole element (`size`); a component read unwritten makes one
 * record at its own offset. */
static __TR_HELPER __private uchar* __tr_psm(__tr_state* st, __private uchar* p, uint size,
                                             __private uchar* base, uint bytes, uint site,
                                             uint buf, __private uchar* shadow, uint slot,
                                             uint mode, uint unset, __private uint* left,
                                             uint mask)
{
    if (st == 0)
        return p;
    if (!(p >= base && p + size <= base + bytes)) {
        __tr_put(st, site, buf, (long)(p - base), size, 1u);
        return st->pdummy;
    }
    uint off = (uint)(p - base);
    uint first = off / slot;
    for (uint c = 0u; mask != 0u; c++, mask >>= 1) {
        if ((mask & 1u) == 0u || shadow[first + c] != 0u)
            continue;
        if (mode & 1u)
            __tr_put(st, unset, __TR_NO_BUFFER, (long)(off + c * slot), slot, 0u);
        shadow[first + c] = 1u;
        *left -= 1u;
    }
    return p;
}

/* A private array as a helper sees it through a pointer parameter (instrument/shadows.py,
 * followed parameters): the caller declares one beside the array and passes its address (0 where
 * the argument is no array the trace knows). `shadow` is 0 for an array not checked for
 * unwritten reads; `slot`, the bytes one shadow byte stands for. */
typedef struct {
    __private uchar* base;
    __private uchar* shadow;
    __private uint* left;
    uint bytes;
    uint buf;
    uint slot;
} __tr_parr;

/* An access of `size` bytes at `p` through a helper's pointer parameter described by `d`: bounds
 * checked on the array, and, where it has a shadow, the bytes written or read unwritten as
 * __tr_ps does them (`mask` 0: the whole access; else bit c, `comp` bytes at c * comp). The
 * records name the array (`d->buf`): calls may give the parameter different arrays. */
static __TR_HELPER __private uchar* __tr_pd(__tr_state* st, __private uchar* p, uint size,
                                            __private __tr_parr* d, uint mode, uint site,
                                            uint unset, uint mask, uint comp)
{
    if (st == 0 || d == 0)
        return p;
    if (!(p >= d->base && p + size <= d->base + d->bytes)) {
        __tr_put(st, site, d->buf, (long)(p - d->base), size, 1u);
        return st->pdummy;
    }
    if (d->shadow == 0 || *d->left == 0u || mode == 0u)
        return p;
    uint off = (uint)(p - d->base);
    if (mask == 0u) {
        mask = 1u;
        comp = size;
    }
    for (uint c = 0u; mask != 0u; c++, mask >>= 1) {
        if ((mask & 1u) == 0u)
            continue;
        uint at = off + c * comp;
        uint last = (at + comp - 1u) / d->slot;
        for (uint e = at / d->slot; e <= last; e++) {
            if (d->shadow[e] != 0u)
                continue;
            if (mode & 1u) {
                __tr_put(st, unset, d->buf, (long)(e * d->slot), d->slot, 0u);
                mode = 2u;
            }
            d->shadow[e] = 1u;
            *d->left -= 1u;
        }
    }
    return p;
}

/* Records a barrier and counts the work-item's arrival there (see the note at the top).
 * `arg` is what the group must agree on besides reaching it (flags computed where it runs,
 * the number of events a wait names), 0 where there is nothing: the record's offset. */
static __TR_HELPER int __tr_sync(__tr_state* st, uint site, uint index, uint arg)
{
    if (st == 0)
        return 1;
    __tr_put(st, site, __TR_NO_BUFFER, (long)arg, 1u, 0u);
    st->phase++;
    if (index < __TR_NBAR)
        st->bar_seen[index]++;
    return 1;
}

static int __tr_barrier(__tr_state* st, uint site, uint index)
{
    return __tr_sync(st, site, index, 0u);
}

/* A wait on async copies is a barrier of the group too (PoCL implements it with one): the
 * build without barriers leaves it out as well, and the barrier at the kernel's end
 * (__tr_end says why). */
#ifdef __TR_NO_BARRIERS
#define __TR_BARRIER(SITE, INDEX, CALL) ((void)__tr_barrier(__tr_ptr, SITE, INDEX))
#define __TR_BARRIER_ARG(SITE, INDEX, ARG, CALL) ((void)__tr_sync(__tr_ptr, SITE, INDEX, ARG))
#define __TR_WAIT(SITE, INDEX, ARG, CALL) ((void)__tr_sync(__tr_ptr, SITE, INDEX, ARG))
#elif defined(__TR_SWITCHED)
#define __TR_BARRIER(SITE, INDEX, CALL) \
    ((void)__tr_barrier(__tr_ptr, SITE, INDEX), __TR_SKIP(__tr_ptr) ? (void)0 : (void)(CALL))
#define __TR_BARRIER_ARG(SITE, INDEX, ARG, CALL) \
    ((void)__tr_sync(__tr_ptr, SITE, INDEX, ARG), __TR_SKIP(__tr_ptr) ? (void)0 : (void)(CALL))
#define __TR_WAIT(SITE, INDEX, ARG, CALL) \
    ((void)__tr_sync(__tr_ptr, SITE, INDEX, ARG), __TR_SKIP(__tr_ptr) ? (void)0 : (void)(CALL))
#else
#define __TR_BARRIER(SITE, INDEX, CALL) ((void)__tr_barrier(__tr_ptr, SITE, INDEX), CALL)
#define __TR_BARRIER_ARG(SITE, INDEX, ARG, CALL) \
    ((void)__tr_sync(__tr_ptr, SITE, INDEX, ARG), CALL)
#define __TR_WAIT(SITE, INDEX, ARG, CALL) ((void)__tr_sync(__tr_ptr, SITE, INDEX, ARG), CALL)
#endif

static long __tr_keep(__tr_state* st, long value)
{
    if (st != 0)
        st->keep = value;
    return value;
}

/* A compare-and-swap has returned `old`: a write where it swapped, a read where not. */
static __TR_HELPER long __tr_cas_done(__tr_state* st, long old, uint site_swapped, uint site_failed)
{
    if (st == 0 || !st->on)
        return old;
    uint site = old == st->keep ? site_swapped : site_failed;
    __tr_put(st, site, st->pend_buf, st->pend_off, st->pend_size, st->pend_oob);
#ifdef __TR_VALUES
    ulong bits = (ulong)old;  /* what it returned: the value it found, its own bytes only */
    if (st->pend_size < 8u)
        bits &= (1ul << (8u * st->pend_size)) - 1ul;
    __tr_val(st, site, bits);
#endif
    return old;
}

/* Every work-item records the call of an async copy with a digest of its arguments, which
 * the whole group must give alike; the copy's elements are shared out over the group:
 * work-item i records elements i, i + group size, ... (a read of the source, a write of the
 * destination). Whoever records an element, the analysis takes it as the group's. */
static uint __tr_digest(ulong dst, ulong src, size_t n, size_t stride)
{
    ulong h = dst * 0x9E3779B97F4A7C15ul ^ src * 0xC2B2AE3D27D4EB4Ful ^ (ulong)n * 0x165667B1ul
              ^ (ulong)stride * 0x27D4EB2Ful;
    return (uint)(h ^ (h >> 32));
}

static size_t __tr_async_lg(__tr_state* st, __local uchar* dst, __global uchar* src, size_t n,
                            size_t elem, size_t stride, uint sw, uint sr, uint hw, uint hr,
                            uint sc)
{
    if (st == 0 || !st->on)
        return n;
    __tr_put(st, sc, __TR_NO_BUFFER, (long)__tr_digest((ulong)dst, (ulong)src, n, stride), 1u,
             0u);
    size_t lid = get_local_id(0) + get_local_size(0) * (get_local_id(1)
                 + get_local_size(1) * get_local_id(2));
    size_t group = get_local_size(0) * get_local_size(1) * get_local_size(2);
    for (size_t i = lid; i < n; i += group) {
        __tr_g(st, src + i * stride * elem, (uint)elem, sr, hr);
        __tr_l(st, dst + i * elem, (uint)elem, sw, hw);
    }
    return n;
}

static size_t __tr_async_gl(__tr_state* st, __global uchar* dst, __local uchar* src, size_t n,
                            size_t elem, size_t stride, uint sw, uint sr, uint hw, uint hr,
                            uint sc)
{
    if (st == 0 || !st->on)
        return n;
    __tr_put(st, sc, __TR_NO_BUFFER, (long)__tr_digest((ulong)dst, (ulong)src, n, stride), 1u,
             0u);
    size_t lid = get_local_id(0) + get_local_size(0) * (get_local_id(1)
                 + get_local_size(1) * get_local_id(2));
    size_t group = get_local_size(0) * get_local_size(1) * get_local_size(2);
    for (size_t i = lid; i < n; i += group) {
        __tr_l(st, src + i * elem, (uint)elem, sr, hr);
        __tr_g(st, dst + i * stride * elem, (uint)elem, sw, hw);
    }
    return n;
}

/* The events of async copies (events.py follows them by name): the number of the event a
 * copy returns, recorded; and before a wait, one record for each event it names, read from
 * the shadows of its list (`ids` from `first`, `count` of them there: 0 past its end, or
 * where the list is not followed). Only a kernel that copies calls these. */
static uint __tr_ev_note(__tr_state* st, uint site, uint id)
{
    __tr_put(st, site, __TR_NO_BUFFER, (long)id, 1u, 0u);
    return id;
}

static uint __tr_ev_wait(__tr_state* st, uint site, uint n, const uint* ids, uint first,
                         uint count)
{
    for (uint i = 0u; i < n; i++)
        __tr_put(st, site, __TR_NO_BUFFER, (long)(first + i < count ? ids[first + i] : 0u), 1u,
                 0u);
    return n;
}

static void __tr_fence(__tr_state* st, uint site, uint flags)
{
    __tr_put(st, site, __TR_NO_BUFFER, (long)flags, 1u, 0u);
}

/* The kernel's one end. Every return of the traced kernel jumps to its bottom, where, in a
 * kernel with barriers traced on a CPU, a barrier that every work-item of the group reaches
 * (none in the build without barriers) comes before __tr_end; a group outside the traced
 * window jumps straight to __tr_end. In a build with real barriers __tr_end has no branch:
 * it writes the record count (a group outside the window writes it to the scratch slot),
 * and only the build without barriers folds the barrier arrivals.
 *
 * Why: PoCL 3.0 (LLVM 14) mis-builds, with its optimiser on, a kernel whose barriers sit
 * under a condition when a second path (a return, the window's early exit) or a branch
 * comes after them on the way to the kernel's end: it took a later condition that depends
 * on the work-item (`if (lane == 0) out[row] = ...` after a CSR row's reduction) as uniform,
 * evaluated it once for the whole group, and every lane ran the lane-0 store. The kernel as
 * written ran right; its trace build reported a race it does not have, and only above the
 * launch size where the trace builds optimised. With every exit meeting at that one end,
 * the trace build runs as the kernel does, optimised or not. A kernel whose own code has
 * that shape (an early return and code after the condition's barriers) is mis-built by
 * PoCL 3.0 as written: the trace then shows what it ran. */
static void __tr_end_without_barriers(__tr_state* st)
{
    if (st == 0 || !st->on)
        return;
    st->cnt[st->wi] = st->n;
    if (!st->counting)
        return;
    for (uint i = 0; i < __TR_NBAR; i++) {
        atomic_min(&st->bar[2 * (st->slot * __TR_NBAR + i)], st->bar_seen[i]);
        atomic_max(&st->bar[2 * (st->slot * __TR_NBAR + i) + 1], st->bar_seen[i]);
    }
}

static void __tr_end_with_barriers(__tr_state* st)
{
    __global uint* at = st->on ? st->cnt + st->wi : (__global uint*)st->gdummy;
    *at = st->n;
}

static void __tr_end(__tr_state* st)
{
#if defined(__TR_NO_BARRIERS)
    __tr_end_without_barriers(st);
#elif defined(__TR_SWITCHED)
    if (__TR_SKIP(st))
        __tr_end_without_barriers(st);
    else
        __tr_end_with_barriers(st);
#else
    __tr_end_with_barriers(st);
#endif
}

static void __tr_begin(__tr_state* st, __global uint* roff, __global uint* rword,
                       __global const ulong* off,
                       __global uint* cnt, volatile __global uint* disp,
                       __global const int* slot, __global ulong* meta,
                       __global uchar* gdummy, __local uchar* ldummy,
                       __private uchar* pdummy, uint mode,
                       __global uint* bar, uint zero, __global uint* rval)
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
    uint count_only = mode & 1u; /* COUNT: the records are counted, not written */
    st->cap = (st->on && !count_only) ? (uint)(off[st->wi + 1] - off[st->wi]) : 0u;
    st->n = 0u;
    st->phase = 0u;
    st->cnt = cnt;
    st->meta = meta;
    st->gdummy = gdummy;
    st->ldummy = ldummy;
    st->pdummy = pdummy;
    st->bar = bar;
    st->counting = count_only;
    st->skip = (mode & 4u) != 0u; /* SKIP_BARRIERS */
    st->zero = zero;
    st->slot = st->on ? (uint)s : 0u;
    st->keep = 0;
    st->modes = 0;
#ifdef __TR_VALUES
    st->rval = (__global __TR_VALUE_T*)rval;
    st->last_site = 0xFFFFFFFFu;
#endif
    for (uint i = 0; i < __TR_NBAR; i++)
        st->bar_seen[i] = 0u;
    for (uint i = 0; i < __TR_NB; i++) {
        st->gb[i] = 0; st->gl[i] = 0; st->cb[i] = 0; st->cl[i] = 0; st->lb[i] = 0; st->ll[i] = 0;
    }
}

static __TR_HELPER void __tr_describe(__tr_state* st, uint id, ulong elem, ulong bytes, ulong d0, ulong d1,
                      ulong d2, ulong d3)
{
    if (st != 0 && st->on && st->wi == 0) {
        __global ulong* m = st->meta + __TR_META * id;
        m[0] = elem; m[1] = bytes; m[2] = d0; m[3] = d1; m[4] = d2; m[5] = d3;
    }
}

/* Images. An image2d_t or image3d_t parameter is a buffer of width × height [× depth]
 * pixels: its base stays 0 (no pointer is ever compared with it) and its length field holds
 * one pixel's bytes, which the host passes in its place. Each read_image* or write_image*
 * call goes through a function generated beside this runtime (instrument/images.py) that
 * records the pixels the call reaches, found as the sampler finds them, then makes the call.
 * `mode` says how the sampler finds them: bits 0-2 its addressing (0 none, 1 clamp to edge,
 * 2 clamp, 3 repeat, 4 mirrored repeat), bit 3 normalised coordinates, bit 4 linear
 * filtering (two pixels along each axis). A pixel clamp leaves outside the image reads the
 * border colour: no memory, no record. A pixel outside the image with no addressing to bring
 * it back in is recorded as out of bounds, its coordinates packed into a negative offset
 * (__tr_outside), and the call is skipped: a read gives 0. The sampler of a kernel argument
 * has its mode passed by the host after the buffers' lengths (st->modes). */
#define __TR_BORDER (-2147483647 - 1)

static uint __tr_smode(__tr_state* st, uint k)
{
    return (st != 0 && st->modes != 0) ? (uint)st->modes[k] : 0u;
}

/* The one or two pixel indices along one axis of `n` pixels (both the same where one). */
static int2 __tr_texels(int n, float s, int i, int is_float, uint mode)
{
    uint address = mode & 7u;
    int normalized = (mode >> 3) & 1u;
    int linear = is_float && ((mode >> 4) & 1u);
    int i0 = i, i1 = i;
    if (is_float) {
        float u = normalized ? s * (float)n : s;
        if (normalized && address == 3u)
            u = (s - floor(s)) * (float)n;
        else if (normalized && address == 4u)
            u = fabs(s - 2.0f * rint(0.5f * s)) * (float)n;
        i0 = (int)floor(linear ? u - 0.5f : u);
        i1 = linear ? i0 + 1 : i0;
        if (normalized && address == 3u) {
            if (i0 < 0)
                i0 += n;
            if (i0 > n - 1)
                i0 -= n;
            if (i1 > n - 1)
                i1 -= n;
        } else if (normalized && address == 4u) {
            i0 = linear ? max(i0, 0) : min(i0, n - 1);
            i1 = min(i1, n - 1);
        }
    }
    if (address == 1u) {
        i0 = clamp(i0, 0, n - 1);
        i1 = clamp(i1, 0, n - 1);
    } else if (address == 2u) {
        i0 = (i0 < 0 || i0 >= n) ? __TR_BORDER : i0;
        i1 = (i1 < 0 || i1 >= n) ? __TR_BORDER : i1;
    }
    return (int2)(i0, i1);
}

/* A pixel outside the image as a negative offset: x and y in 15 bits each (2-D), or x, y
 * and z in 10 bits each (3-D), saturated; trace/recorded.py unpacks them. */
static long __tr_outside(int x, int y, int z, int d)
{
    long packed;
    if (d > 0)
        packed = (long)(clamp(x, -512, 511) + 512) | ((long)(clamp(y, -512, 511) + 512) << 10)
                 | ((long)(clamp(z, -512, 511) + 512) << 20);
    else
        packed = (long)(clamp(x, -16384, 16383) + 16384)
                 | ((long)(clamp(y, -16384, 16383) + 16384) << 15);
    return -1 - packed;
}

/* Records the pixels an image call reaches (`d` 0 for a 2-D image); 0 when one of them is
 * outside the image with nothing to bring it back (the call is then skipped). */
static __TR_HELPER int __tr_image(__tr_state* st, uint site, uint buf, int w, int h, int d,
                                  float4 f, int4 c, int is_float, uint mode)
{
    if (st == 0)
        return 1;
    int2 xs = __tr_texels(w, f.x, c.x, is_float, mode);
    int2 ys = __tr_texels(h, f.y, c.y, is_float, mode);
    int2 zs = d > 0 ? __tr_texels(d, f.z, c.z, is_float, mode) : (int2)(0, 0);
    uint px = (uint)st->gl[buf];
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        int z = k ? zs.y : zs.x;
        if (k && zs.y == zs.x)
            break;
        for (int j = 0; j < 2; j++) {
            int y = j ? ys.y : ys.x;
            if (j && ys.y == ys.x)
                break;
            for (int i = 0; i < 2; i++) {
                int x = i ? xs.y : xs.x;
                if (i && xs.y == xs.x)
                    break;
                if (x == __TR_BORDER || y == __TR_BORDER || z == __TR_BORDER)
                    continue;
                if (x < 0 || x >= w || y < 0 || y >= h || z < 0 || (d > 0 && z >= d)) {
                    ok = 0;
                    __tr_put(st, site, buf, __tr_outside(x, y, z, d), px, 1u);
                } else {
                    __tr_put(st, site, buf, (((long)z * h + y) * w + x) * (long)px, px, 0u);
                }
            }
        }
    }
    return ok;
}

/* An access whose type needs more than 4-byte alignment (a vector, a double, a struct of
 * them) is checked for it (__tr_misaligned); the test is a constant the compiler folds, so
 * the code of every other access is the same as without the check. */
#define __TR_G(P, SITE, HINT) ((__typeof__(P)) (__alignof__(*(P)) > 4 \
    ? __tr_ga(__tr_ptr, (__global uchar*)(P), (uint)sizeof(*(P)), (uint)__alignof__(*(P)), \
              SITE, HINT) \
    : __tr_g(__tr_ptr, (__global uchar*)(P), (uint)sizeof(*(P)), SITE, HINT)))
#define __TR_C(P, SITE, HINT) ((__typeof__(P)) (__alignof__(*(P)) > 4 \
    ? __tr_ca(__tr_ptr, (__constant uchar*)(P), (uint)sizeof(*(P)), (uint)__alignof__(*(P)), \
              SITE, HINT) \
    : __tr_c(__tr_ptr, (__constant uchar*)(P), (uint)sizeof(*(P)), SITE, HINT)))
#define __TR_L(P, SITE, HINT) ((__typeof__(P)) (__alignof__(*(P)) > 4 \
    ? __tr_la(__tr_ptr, (__local uchar*)(P) + __tr_z(__tr_ptr), (uint)sizeof(*(P)), \
              (uint)__alignof__(*(P)), SITE, HINT) \
    : __tr_l(__tr_ptr, (__local uchar*)(P) + __tr_z(__tr_ptr), (uint)sizeof(*(P)), SITE, \
             HINT)))
#define __TR_GX(P, AT, SIZE, SITE, HINT) ((__typeof__(P)) __tr_gx(__tr_ptr, \
    (__global uchar*)(P), AT, SIZE, SITE, HINT, 0u))
#define __TR_GP(P, SITE, HINT) ((__typeof__(P)) __tr_gx(__tr_ptr, \
    (__global uchar*)(P), 0u, (uint)sizeof(*(P)), SITE, HINT, 1u))
#define __TR_CX(P, AT, SIZE, SITE, HINT) ((__typeof__(P)) __tr_cx(__tr_ptr, \
    (__constant uchar*)(P), AT, SIZE, SITE, HINT, 0u))
#define __TR_CP(P, SITE, HINT) ((__typeof__(P)) __tr_cx(__tr_ptr, \
    (__constant uchar*)(P), 0u, (uint)sizeof(*(P)), SITE, HINT, 1u))
#define __TR_GM(P, MASK, SCALAR, SITE, HINT) ((__typeof__(P)) __tr_gxm(__tr_ptr, \
    (__global uchar*)(P), MASK, SCALAR, SITE, HINT))
#define __TR_CM(P, MASK, SCALAR, SITE, HINT) ((__typeof__(P)) __tr_cxm(__tr_ptr, \
    (__constant uchar*)(P), MASK, SCALAR, SITE, HINT))
#define __TR_LM(P, MASK, SCALAR, SITE, HINT) ((__typeof__(P)) __tr_lxm(__tr_ptr, \
    (__local uchar*)(P) + __tr_z(__tr_ptr), MASK, SCALAR, SITE, HINT))
#define __TR_LX(P, AT, SIZE, SITE, HINT) ((__typeof__(P)) __tr_lx(__tr_ptr, \
    (__local uchar*)(P) + __tr_z(__tr_ptr), AT, SIZE, SITE, HINT, 0u))
#define __TR_LP(P, SITE, HINT) ((__typeof__(P)) __tr_lx(__tr_ptr, \
    (__local uchar*)(P) + __tr_z(__tr_ptr), 0u, (uint)sizeof(*(P)), SITE, HINT, 1u))
#define __TR_P(P, ARRAY, SITE, BUF) ((__typeof__(P)) __tr_p(__tr_ptr, (__private uchar*)(P), \
    (uint)sizeof(*(P)), (__private uchar*)(ARRAY), (uint)sizeof(ARRAY), SITE, BUF))
#define __TR_PS(P, SIZE, ARRAY, SHADOW, ELEM, MODE, SITE, UNSET, BUF) ((__typeof__(P)) \
    __tr_ps(__tr_ptr, (__private uchar*)(P), (uint)(SIZE), (__private uchar*)(ARRAY), \
            (uint)sizeof(ARRAY), SITE, BUF, SHADOW, ELEM, MODE, UNSET, &SHADOW##_left))
#define __TR_PSM(P, ARRAY, SHADOW, SLOT, MODE, SITE, UNSET, BUF, MASK) ((__typeof__(P)) \
    __tr_psm(__tr_ptr, (__private uchar*)(P), (uint)sizeof(*(P)), (__private uchar*)(ARRAY), \
             (uint)sizeof(ARRAY), SITE, BUF, SHADOW, SLOT, MODE, UNSET, &SHADOW##_left, MASK))
#define __TR_PD(P, SIZE, D, MODE, SITE, UNSET, MASK, COMP) ((__typeof__(P)) \
    __tr_pd(__tr_ptr, (__private uchar*)(P), (uint)(SIZE), D, MODE, SITE, UNSET, MASK, COMP))
#define __TR_KEEP(V) ((__typeof__(V)) __tr_keep(__tr_ptr, (long)(V)))
#define __TR_CAS(CALL, OK, FAIL) ((__typeof__(CALL)) __tr_cas_done(__tr_ptr, (long)(CALL), \
    OK, FAIL))
#define __TR_VG(P, W, SITE, HINT) ((__typeof__(P)) __tr_g(__tr_ptr, (__global uchar*)(P), \
    (uint)((W) * sizeof(*(P))), SITE, HINT))
#define __TR_VC(P, W, SITE, HINT) ((__typeof__(P)) __tr_c(__tr_ptr, (__constant uchar*)(P), \
    (uint)((W) * sizeof(*(P))), SITE, HINT))
#define __TR_VL(P, W, SITE, HINT) ((__typeof__(P)) __tr_l(__tr_ptr, \
    (__local uchar*)(P) + __tr_z(__tr_ptr), \
    (uint)((W) * sizeof(*(P))), SITE, HINT))
