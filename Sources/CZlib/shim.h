#ifndef GQLGATE_CZLIB_SHIM_H
#define GQLGATE_CZLIB_SHIM_H
#include <zlib.h>
#endif
