#ifndef GQLGATE_CBROTLI_SHIM_H
#define GQLGATE_CBROTLI_SHIM_H
#include <brotli/encode.h>
#endif
