#ifndef STRATA_BENCH_SQLITE_SHIM_H
#define STRATA_BENCH_SQLITE_SHIM_H
// The C API, for the peer that measures what GRDB's layer costs above it.
#include <sqlite3.h>
#endif
