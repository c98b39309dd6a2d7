#ifndef STRATA_CZLIB_SHIM_H
#define STRATA_CZLIB_SHIM_H
// zlib's inflate: Core Data stores its model cache (Z_MODELCACHE) as a raw DEFLATE stream.
#include <zlib.h>
#endif
