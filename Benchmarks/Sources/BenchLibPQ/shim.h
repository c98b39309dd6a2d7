#ifndef STRATA_BENCH_LIBPQ_SHIM_H
#define STRATA_BENCH_LIBPQ_SHIM_H
// PostgreSQL's own C client, synchronous: the peer that tells what postgres-nio's event loop
// costs a synchronous caller (issue 34 chooses the PostgreSQL store's driver by that cost).
#include <libpq-fe.h>
#endif
