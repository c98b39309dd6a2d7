#ifndef STRATA_CLZ4_SHIM_H
#define STRATA_CLZ4_SHIM_H
// liblz4's frame API: self-describing frames with content sizes and checksums.
#include <lz4frame.h>
#endif
