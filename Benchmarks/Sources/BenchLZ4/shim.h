#ifndef STRATA_BENCH_LZ4_SHIM_H
#define STRATA_BENCH_LZ4_SHIM_H
// The block API: the physical-limit peer compresses its own chunks, with no framing around them.
#include <lz4.h>
#endif
