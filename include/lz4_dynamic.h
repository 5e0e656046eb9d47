/*
 * LZ4 block compression for the writer's chunk encoder, through the system's liblz4 loaded at
 * run time (dlopen), so that LZ4 pages (the writer's default compression) are compressed without
 * the GIL and without a Python call per page, and no build-time dependency is added.
 *
 * The writer must keep writing the bytes it wrote before: those of cramjam.lz4.compress_block
 * (tsfile.compression.compress), which is liblz4's LZ4_compress_default too (acceleration 1).
 * The caller (tsfile/_write/chunk_encode.pyx) uses the loaded function only after checking that
 * it gives those bytes on probe inputs; tests/test_chunk_encode.py checks many more.
 *
 * tsfile_lz4_load() returns NULL where no liblz4 can be loaded (then LZ4 chunks keep the
 * page-by-page path, with the same bytes).
 */
#ifndef TSFILE_LZ4_DYNAMIC_H
#define TSFILE_LZ4_DYNAMIC_H

#include <stddef.h>

/* LZ4_compress_default(src, dst, srcSize, dstCapacity): the compressed size, 0 on failure. */
typedef int (*tsfile_lz4_compress_fn)(const char *src, char *dst, int src_size, int dst_capacity);

/* liblz4's LZ4_MAX_INPUT_SIZE: larger inputs are refused (0). */
#define TSFILE_LZ4_MAX_INPUT 0x7E000000

/* liblz4's LZ4_COMPRESSBOUND: room that is always enough for n input bytes. */
static inline size_t tsfile_lz4_bound(size_t n) { return n + n / 255 + 16; }

#if defined(_WIN32)
static inline tsfile_lz4_compress_fn tsfile_lz4_load(void) { return NULL; }
#else
#include <dlfcn.h>

static inline tsfile_lz4_compress_fn tsfile_lz4_load(void)
{
    static const char *const names[] = {"liblz4.so.1", "liblz4.1.dylib", "liblz4.so",
                                        "liblz4.dylib", NULL};
    for (int i = 0; names[i] != NULL; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL)
            continue;
        void *fn = dlsym(lib, "LZ4_compress_default");
        if (fn != NULL)
            return (tsfile_lz4_compress_fn)fn; /* the library stays loaded for the process */
        dlclose(lib);
    }
    return NULL;
}
#endif

#endif /* TSFILE_LZ4_DYNAMIC_H */
