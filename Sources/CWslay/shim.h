#ifndef GQLGATE_CWSLAY_SHIM_H
#define GQLGATE_CWSLAY_SHIM_H
#include <sys/types.h>
#include <stdint.h>
#include <stddef.h>
#include <wslay/wslay.h>
#endif
