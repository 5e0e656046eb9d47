/* A bounded, decaying pool of large memory blocks behind a numpy PyDataMem_Handler (NEP 49).
 *
 * Why: a whole-table read's result arrays are fresh memory, and the kernel clears every fresh
 * page when it is first touched. perf showed that clearing at 45-70 % of a read's CPU (far more
 * on a VM whose balloon/kdamond has taken the memory back). Memory that an earlier result held
 * and the program has dropped is kept here for a while (the way pyarrow's jemalloc keeps dirty
 * pages for about 1 s) and handed to the next result without a page fault.
 *
 * What is kept: only blocks of at least TSF_POOL_MIN bytes (smaller requests go to malloc), each
 * its own 2 MiB-aligned mapping with MADV_HUGEPAGE (as numpy's allocator asks for large arrays),
 * sized by class (2 MiB steps up to 16 MiB, then 8 classes per doubling); a request takes a free
 * block of its class or of the next two (above 16 MiB at most ~25 % larger; below, up to 4 MiB
 * larger: a 1 MiB array may take a 6 MiB block). Bounds:
 *   - max_retain: the bytes of free blocks kept at most (the oldest go first); 0 keeps none;
 *   - decay: a free block unused for longer is unmapped by a background thread, which exists
 *     only while the pool keeps memory (so an idle program gives its memory back).
 * A block in use is never unmapped by the pool: it is the array's until numpy frees it, from
 * whichever thread, whatever the settings are by then.
 *
 * Layout: a pooled block's first 64 bytes are its header (the free lists' links while it is
 * free), its data follows (64-byte aligned). Every pointer handed out, pooled or malloc'ed, has
 * a tag in the 16 bytes before it, so free and realloc know what they were given.
 */
#ifndef TSFILE_MEMPOOL_H
#define TSFILE_MEMPOOL_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define TSF_POOL_AVAILABLE 0
#else
#define TSF_POOL_AVAILABLE 1
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#endif

#define TSF_POOL_MIN ((size_t)1 << 20) /* smaller requests: malloc */
#define TSF_ALIGN ((size_t)2 << 20)    /* mapping alignment and class step: one huge page */
#define TSF_HEADER 64                  /* bytes of a pooled block before its data */
#define TSF_TAG_MAGIC 0x54534d50u      /* "TSMP" */
#define TSF_KIND_SMALL 0xffffffffu     /* tag kind of a malloc'ed pointer */
#define TSF_KIND_UNPOOLED 0xfffffffeu  /* a mapping too large for any class: never kept */
#define TSF_CLASSES 256
#define TSF_NEAR_CLASSES 2 /* a request may take a block this many classes larger */

/* The 16 bytes before every pointer handed out. */
typedef struct {
    uint64_t size;  /* in use: bytes asked for (what realloc copies); free (pooled blocks): the
                       bytes from the data's start known to be zero (see tsf_zero_prefix) */
    uint32_t kind;  /* class index, TSF_KIND_SMALL or TSF_KIND_UNPOOLED */
    uint32_t magic; /* TSF_TAG_MAGIC: checked by free and realloc in debug builds */
} tsf_tag;

/* The header of a pooled block (at the start of its mapping). */
typedef struct tsf_block {
    struct tsf_block *cls_prev, *cls_next; /* free blocks of one class, newest first */
    struct tsf_block *age_prev, *age_next; /* every free block, newest first */
    uint64_t freed_ns;                     /* when it was last freed (monotonic) */
    uint64_t map_len;                      /* bytes of its mapping */
    tsf_tag tag;
} tsf_block;

typedef char tsf_header_is_64_bytes[(sizeof(tsf_block) == TSF_HEADER) ? 1 : -1];

/* Counters and settings, as memory_info() reports them. */
typedef struct {
    uint64_t max_retain, decay_ns;
    uint64_t retained_bytes, retained_blocks;
    uint64_t in_use_bytes, in_use_blocks;
    uint64_t hits, misses;
    uint64_t cleared_bytes; /* bytes calloc cleared (memset) in reused blocks */
    uint64_t decayed_bytes, evicted_bytes, released_bytes;
    int decay_thread;
} tsf_pool_stats;

static inline tsf_tag *tsf_tag_of(void *p) { return (tsf_tag *)((char *)p - sizeof(tsf_tag)); }

/* -- small requests: malloc with a tag in front ---------------------------------------------- */

static void *tsf_small_alloc(size_t size, int zero) {
    if (size > SIZE_MAX - sizeof(tsf_tag)) return NULL;
    tsf_tag *t = zero ? (tsf_tag *)calloc(1, size + sizeof(tsf_tag))
                      : (tsf_tag *)malloc(size + sizeof(tsf_tag));
    if (t == NULL) return NULL;
    t->size = size;
    t->kind = TSF_KIND_SMALL;
    t->magic = TSF_TAG_MAGIC;
    return t + 1;
}

#if TSF_POOL_AVAILABLE

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* the decay thread's: settings changed, or the pool emptied */
    tsf_block *cls_head[TSF_CLASSES];
    tsf_block *age_head, *age_tail;
    tsf_pool_stats s;
} tsf_pool_state;

static tsf_pool_state tsf_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static uint64_t tsf_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The mapping length of the class that holds ``need`` bytes (header included), and that class
   (TSF_KIND_UNPOOLED when none does). */
static size_t tsf_class_len(size_t need, uint32_t *cls) {
    const size_t small_top = (size_t)8 * TSF_ALIGN; /* 16 MiB: classes 0..7 in 2 MiB steps */
    if (need <= small_top) {
        size_t n = (need + TSF_ALIGN - 1) / TSF_ALIGN;
        *cls = (uint32_t)(n - 1);
        return n * TSF_ALIGN;
    }
    int k = 63 - __builtin_clzll((unsigned long long)(need - 1)); /* 2^k < need <= 2^(k+1) */
    size_t p = (size_t)1 << k, step = p / 8;
    size_t m = (need - p + step - 1) / step; /* 1..8 */
    size_t c = 8 + (size_t)(k - 24) * 8 + (m - 1);
    if (c >= TSF_CLASSES) { /* beyond the classes (petabytes): mapped as asked, never kept */
        *cls = TSF_KIND_UNPOOLED;
        return (need + TSF_ALIGN - 1) / TSF_ALIGN * TSF_ALIGN;
    }
    *cls = (uint32_t)c;
    return p + m * step;
}

/* A fresh mapping of ``len`` bytes (a multiple of TSF_ALIGN) aligned to TSF_ALIGN. */
static void *tsf_map(size_t len) {
    size_t over = len + TSF_ALIGN;
    char *raw = (char *)mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == (char *)MAP_FAILED) return NULL;
    char *start = (char *)(((uintptr_t)raw + TSF_ALIGN - 1) & ~(uintptr_t)(TSF_ALIGN - 1));
    if (start > raw) munmap(raw, (size_t)(start - raw));
    size_t tail = (size_t)(raw + over - (start + len));
    if (tail) munmap(start + len, tail);
#ifdef MADV_HUGEPAGE
    madvise(start, len, MADV_HUGEPAGE); /* a hint: THP may be off */
#endif
    return start;
}

/* The bytes from ``p`` on that are zero, up to ``n``, in whole 64-byte lines (0 if the first
   line is not). Run on a block as it is freed, so that calloc need not clear it again: numpy
   clears an object array's slots to NULL before freeing it (a read's tag columns), while other
   data usually ends the scan in its first line. */
static size_t tsf_zero_prefix(const char *p, size_t n) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const uint64_t *w = (const uint64_t *)(p + i);
        if ((w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) != 0) return i;
    }
    for (; i < n; i++)
        if (p[i]) return i / 64 * 64;
    return n;
}

/* -- the free lists (lock held) -------------------------------------------------------------- */

static void tsf_push_free(tsf_block *b, uint64_t now) {
    tsf_pool_state *P = &tsf_pool;
    b->freed_ns = now;
    b->cls_prev = NULL;
    b->cls_next = P->cls_head[b->tag.kind];
    if (b->cls_next) b->cls_next->cls_prev = b;
    P->cls_head[b->tag.kind] = b;
    b->age_prev = NULL;
    b->age_next = P->age_head;
    if (P->age_head) P->age_head->age_prev = b;
    else P->age_tail = b;
    P->age_head = b;
    P->s.retained_bytes += b->map_len;
    P->s.retained_blocks += 1;
}

static void tsf_unlink_free(tsf_block *b) {
    tsf_pool_state *P = &tsf_pool;
    if (b->cls_prev) b->cls_prev->cls_next = b->cls_next;
    else P->cls_head[b->tag.kind] = b->cls_next;
    if (b->cls_next) b->cls_next->cls_prev = b->cls_prev;
    if (b->age_prev) b->age_prev->age_next = b->age_next;
    else P->age_head = b->age_next;
    if (b->age_next) b->age_next->age_prev = b->age_prev;
    else P->age_tail = b->age_prev;
    P->s.retained_bytes -= b->map_len;
    P->s.retained_blocks -= 1;
}

/* Unlink free blocks, oldest first, while more than ``keep`` bytes are kept or the oldest has
   been idle for decay_ns at ``now`` (0: no expiry), and chain them on ``*out`` (through cls_next)
   for tsf_unmap_chain once the lock is dropped; their bytes. keep = max_retain: the bound;
   keep = UINT64_MAX: the expired; keep = 0: all. */
static uint64_t tsf_take_oldest(tsf_block **out, uint64_t keep, uint64_t now) {
    tsf_pool_state *P = &tsf_pool;
    uint64_t bytes = 0;
    while (P->age_tail &&
           (P->s.retained_bytes > keep || (now && P->age_tail->freed_ns + P->s.decay_ns <= now))) {
        tsf_block *b = P->age_tail;
        tsf_unlink_free(b);
        b->cls_next = *out;
        *out = b;
        bytes += b->map_len;
    }
    return bytes;
}

/* munmap outside the lock: giving pages back takes time, other threads need not wait. */
static void tsf_unmap_chain(tsf_block *b) {
    while (b) {
        tsf_block *next = b->cls_next;
        munmap(b, b->map_len);
        b = next;
    }
}

/* -- the decay thread -------------------------------------------------------------------------- */

static void *tsf_decay_main(void *arg) {
    (void)arg;
    tsf_pool_state *P = &tsf_pool;
    pthread_mutex_lock(&P->lock);
    for (;;) {
        if (P->age_tail == NULL) break; /* nothing kept: the thread ends until memory is kept */
        uint64_t now = tsf_now_ns();
        uint64_t due = P->age_tail->freed_ns + P->s.decay_ns;
        if (due <= now) {
            tsf_block *gone = NULL;
            P->s.decayed_bytes += tsf_take_oldest(&gone, UINT64_MAX, now);
            pthread_mutex_unlock(&P->lock);
            tsf_unmap_chain(gone);
            pthread_mutex_lock(&P->lock);
            continue;
        }
        struct timespec until;
        until.tv_sec = (time_t)(due / 1000000000u);
        until.tv_nsec = (long)(due % 1000000000u);
        pthread_cond_timedwait(&P->wake, &P->lock, &until); /* CLOCK_MONOTONIC: see init */
    }
    P->s.decay_thread = 0;
    pthread_mutex_unlock(&P->lock);
    return NULL;
}

/* Start the decay thread if it is not running (lock held); 0 if it could not be started. */
static int tsf_ensure_decay_thread(void) {
    tsf_pool_state *P = &tsf_pool;
    if (P->s.decay_thread) return 1;
    pthread_attr_t attr;
    pthread_t th;
    if (pthread_attr_init(&attr) != 0) return 0;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    int rc = pthread_create(&th, &attr, tsf_decay_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) return 0;
    P->s.decay_thread = 1;
    return 1;
}

/* -- the handler's functions ------------------------------------------------------------------ */

/* A free block for ``size`` bytes of class ``cls`` or one of the next classes (lock held), or
   NULL: for calloc (``zero``) one already zero over ``size`` bytes if there is one, else one that
   is not (zeroed blocks are kept for calloc). */
static tsf_block *tsf_pick(uint32_t cls, size_t size, int zero) {
    tsf_pool_state *P = &tsf_pool;
    tsf_block *any = NULL;
    for (uint32_t c = cls; c < TSF_CLASSES && c <= cls + TSF_NEAR_CLASSES; c++) {
        for (tsf_block *b = P->cls_head[c]; b; b = b->cls_next) {
            int zeroed = b->tag.size >= size;
            if (zeroed == (zero != 0)) return b;
            if (!any) any = b;
        }
    }
    return any;
}

static void *tsf_large_alloc(size_t size, int zero) {
    tsf_pool_state *P = &tsf_pool;
    if (size > SIZE_MAX - TSF_HEADER - 2 * TSF_ALIGN) return NULL;
    uint32_t cls;
    size_t len = tsf_class_len(size + TSF_HEADER, &cls);
    tsf_block *b = NULL;
    pthread_mutex_lock(&P->lock);
    if (cls != TSF_KIND_UNPOOLED) b = tsf_pick(cls, size, zero);
    if (b) {
        tsf_unlink_free(b);
        P->s.hits += 1;
        len = b->map_len;
        if (zero && b->tag.size < size) P->s.cleared_bytes += size - b->tag.size; /* below */
    } else {
        P->s.misses += 1;
    }
    P->s.in_use_bytes += len;
    P->s.in_use_blocks += 1;
    pthread_mutex_unlock(&P->lock);
    if (b) {
        size_t known = b->tag.size < size ? b->tag.size : size; /* zero since it was freed */
        if (zero && known < size) memset((char *)b + TSF_HEADER + known, 0, size - known);
    } else {
        b = (tsf_block *)tsf_map(len); /* fresh pages read as zero: calloc is free */
        if (b == NULL) {
            pthread_mutex_lock(&P->lock);
            P->s.in_use_bytes -= len;
            P->s.in_use_blocks -= 1;
            pthread_mutex_unlock(&P->lock);
            return NULL;
        }
        b->map_len = len;
        b->tag.kind = cls;
        b->tag.magic = TSF_TAG_MAGIC;
    }
    b->tag.size = size;
    return (char *)b + TSF_HEADER;
}

static void tsf_large_free(tsf_block *b) {
    tsf_pool_state *P = &tsf_pool;
    tsf_block *gone = NULL;
    int keep;
    /* before it is shared: from here on tag.size counts the zero bytes (not worth a look when
       the block will not be kept; the bound is read without the lock, a stale value only costs
       or saves that look) */
    if (b->tag.kind != TSF_KIND_UNPOOLED &&
        b->map_len <= __atomic_load_n(&P->s.max_retain, __ATOMIC_RELAXED))
        b->tag.size = tsf_zero_prefix((const char *)b + TSF_HEADER, b->tag.size);
    else
        b->tag.size = 0;
    pthread_mutex_lock(&P->lock);
    P->s.in_use_bytes -= b->map_len;
    P->s.in_use_blocks -= 1;
    keep = b->tag.kind != TSF_KIND_UNPOOLED && b->map_len <= P->s.max_retain &&
           tsf_ensure_decay_thread();
    if (keep) {
        tsf_push_free(b, tsf_now_ns());
        P->s.evicted_bytes += tsf_take_oldest(&gone, P->s.max_retain, 0);
    }
    pthread_mutex_unlock(&P->lock);
    if (!keep) munmap(b, b->map_len);
    tsf_unmap_chain(gone);
}

static void *tsf_pool_malloc(void *ctx, size_t size) {
    (void)ctx;
    return size < TSF_POOL_MIN ? tsf_small_alloc(size, 0) : tsf_large_alloc(size, 0);
}

static void *tsf_pool_calloc(void *ctx, size_t nelem, size_t elsize) {
    (void)ctx;
    if (elsize && nelem > SIZE_MAX / elsize) return NULL;
    size_t size = nelem * elsize;
    return size < TSF_POOL_MIN ? tsf_small_alloc(size, 1) : tsf_large_alloc(size, 1);
}

static void tsf_pool_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    (void)size; /* the tag knows; numpy's size is the array's at the time, not the request */
    if (ptr == NULL) return;
    tsf_tag *t = tsf_tag_of(ptr);
    assert(t->magic == TSF_TAG_MAGIC); /* ours (TSFILE_DEBUG=1 builds check) */
    if (t->kind == TSF_KIND_SMALL) free(t);
    else tsf_large_free((tsf_block *)((char *)ptr - TSF_HEADER));
}

static void *tsf_pool_realloc(void *ctx, void *ptr, size_t new_size) {
    if (ptr == NULL) return tsf_pool_malloc(ctx, new_size);
    tsf_tag *t = tsf_tag_of(ptr);
    assert(t->magic == TSF_TAG_MAGIC);
    if (t->kind == TSF_KIND_SMALL && new_size < TSF_POOL_MIN) {
        tsf_tag *moved = (tsf_tag *)realloc(t, new_size + sizeof(tsf_tag));
        if (moved == NULL) return NULL;
        moved->size = new_size;
        return moved + 1;
    }
    if (t->kind != TSF_KIND_SMALL) {
        /* in place while the block holds it and is not more than twice what is needed */
        tsf_block *b = (tsf_block *)((char *)ptr - TSF_HEADER);
        size_t room = b->map_len - TSF_HEADER;
        if (new_size <= room && new_size >= TSF_POOL_MIN && 2 * (new_size + TSF_HEADER) > b->map_len) {
            b->tag.size = new_size;
            return ptr;
        }
    }
    void *out = tsf_pool_malloc(ctx, new_size);
    if (out == NULL) return NULL; /* the old block stays valid, as realloc's contract says */
    memcpy(out, ptr, t->size < new_size ? t->size : new_size);
    tsf_pool_free(ctx, ptr, t->size);
    return out;
}

/* -- fresh memory: unpooled() ---------------------------------------------------------------- */

/* Arrays best left lazily zeroed (null masks that only a null touches) get a mapping of their
   own, given back when freed, never kept. Why not plain calloc: glibc serves a large calloc from
   a thread's malloc arena once its dynamic mmap threshold has grown, and must then memset it;
   two reads on two threads touched every page of their masks that way (measured: +22 k page
   faults and +120 ms of system time for two 20 M-row reads at once). A fresh mapping reads as
   zero with no page touched until a null is written. */
static void *tsf_fresh_alloc(size_t size, int zero) {
    tsf_pool_state *P = &tsf_pool;
    if (size < TSF_POOL_MIN) return tsf_small_alloc(size, zero);
    if (size > SIZE_MAX - TSF_HEADER - 2 * TSF_ALIGN) return NULL;
    size_t len = (size + TSF_HEADER + TSF_ALIGN - 1) / TSF_ALIGN * TSF_ALIGN;
    tsf_block *b = (tsf_block *)tsf_map(len);
    if (b == NULL) return NULL;
    b->map_len = len;
    b->tag.kind = TSF_KIND_UNPOOLED; /* tsf_large_free unmaps it */
    b->tag.magic = TSF_TAG_MAGIC;
    b->tag.size = size;
    pthread_mutex_lock(&P->lock);
    P->s.in_use_bytes += len;
    P->s.in_use_blocks += 1;
    pthread_mutex_unlock(&P->lock);
    return (char *)b + TSF_HEADER;
}

static void *tsf_fresh_malloc(void *ctx, size_t size) {
    (void)ctx;
    return tsf_fresh_alloc(size, 0);
}

static void *tsf_fresh_calloc(void *ctx, size_t nelem, size_t elsize) {
    (void)ctx;
    if (elsize && nelem > SIZE_MAX / elsize) return NULL;
    return tsf_fresh_alloc(nelem * elsize, 1);
}

/* -- settings and counters -------------------------------------------------------------------- */

static void tsf_pool_configure(uint64_t max_retain, uint64_t decay_ns) {
    tsf_pool_state *P = &tsf_pool;
    tsf_block *gone = NULL;
    pthread_mutex_lock(&P->lock);
    /* atomic: tsf_large_free reads it without the lock */
    __atomic_store_n(&P->s.max_retain, max_retain, __ATOMIC_RELAXED);
    P->s.decay_ns = decay_ns;
    P->s.evicted_bytes += tsf_take_oldest(&gone, P->s.max_retain, 0);
    pthread_cond_signal(&P->wake); /* the decay thread recomputes its deadline */
    pthread_mutex_unlock(&P->lock);
    tsf_unmap_chain(gone);
}

static uint64_t tsf_pool_release(void) {
    tsf_pool_state *P = &tsf_pool;
    tsf_block *gone = NULL;
    pthread_mutex_lock(&P->lock);
    uint64_t bytes = tsf_take_oldest(&gone, 0, 0);
    P->s.released_bytes += bytes;
    pthread_cond_signal(&P->wake);
    pthread_mutex_unlock(&P->lock);
    tsf_unmap_chain(gone);
    return bytes;
}

static tsf_pool_stats tsf_pool_get_stats(void) {
    tsf_pool_state *P = &tsf_pool;
    pthread_mutex_lock(&P->lock);
    tsf_pool_stats s = P->s;
    pthread_mutex_unlock(&P->lock);
    return s;
}

/* fork: the child has no decay thread and must not inherit a lock held by another thread; it
   gives back what the parent kept (the parent's results it still uses stay mapped). */
static void tsf_atfork_prepare(void) { pthread_mutex_lock(&tsf_pool.lock); }
static void tsf_atfork_parent(void) { pthread_mutex_unlock(&tsf_pool.lock); }
static void tsf_atfork_child(void) {
    tsf_pool_state *P = &tsf_pool;
    tsf_block *gone = NULL;
    pthread_mutex_init(&P->lock, NULL);
    P->s.decay_thread = 0;
    P->s.released_bytes += tsf_take_oldest(&gone, 0, 0);
    tsf_unmap_chain(gone);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&P->wake, &ca);
    pthread_condattr_destroy(&ca);
}

/* Once, at import: the decay thread's deadlines are on CLOCK_MONOTONIC; the fork handlers. */
static int tsf_pool_init(uint64_t max_retain, uint64_t decay_ns) {
    tsf_pool_state *P = &tsf_pool;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0) return -1;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_destroy(&P->wake);
    int rc = pthread_cond_init(&P->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0) return -1;
    if (pthread_atfork(tsf_atfork_prepare, tsf_atfork_parent, tsf_atfork_child) != 0) return -1;
    P->s.max_retain = max_retain;
    P->s.decay_ns = decay_ns;
    return 0;
}

#else /* no mmap/pthreads: every request goes to malloc, nothing is kept */

static void *tsf_pool_malloc(void *ctx, size_t size) { (void)ctx; return tsf_small_alloc(size, 0); }
static void *tsf_pool_calloc(void *ctx, size_t nelem, size_t elsize) {
    (void)ctx;
    if (elsize && nelem > SIZE_MAX / elsize) return NULL;
    return tsf_small_alloc(nelem * elsize, 1);
}
static void tsf_pool_free(void *ctx, void *ptr, size_t size) {
    (void)ctx; (void)size;
    if (ptr) free(tsf_tag_of(ptr));
}
static void *tsf_pool_realloc(void *ctx, void *ptr, size_t new_size) {
    (void)ctx;
    if (ptr == NULL) return tsf_small_alloc(new_size, 0);
    tsf_tag *moved = (tsf_tag *)realloc(tsf_tag_of(ptr), new_size + sizeof(tsf_tag));
    if (moved == NULL) return NULL;
    moved->size = new_size;
    return moved + 1;
}
static void tsf_pool_configure(uint64_t max_retain, uint64_t decay_ns) { (void)max_retain; (void)decay_ns; }
static uint64_t tsf_pool_release(void) { return 0; }
static tsf_pool_stats tsf_pool_get_stats(void) { tsf_pool_stats s; memset(&s, 0, sizeof s); return s; }
static int tsf_pool_init(uint64_t max_retain, uint64_t decay_ns) { (void)max_retain; (void)decay_ns; return 0; }

static void *tsf_fresh_malloc(void *ctx, size_t size) { return tsf_pool_malloc(ctx, size); }
static void *tsf_fresh_calloc(void *ctx, size_t nelem, size_t elsize) { return tsf_pool_calloc(ctx, nelem, elsize); }

#endif /* TSF_POOL_AVAILABLE */

#endif /* TSFILE_MEMPOOL_H */
