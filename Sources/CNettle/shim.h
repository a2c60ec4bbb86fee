#ifndef GQLGATE_CNETTLE_SHIM_H
#define GQLGATE_CNETTLE_SHIM_H
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#endif
