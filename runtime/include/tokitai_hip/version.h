/* Version of TokitaiHip. CMake reads the project version from these three lines. */
#ifndef TOKITAI_HIP_VERSION_H
#define TOKITAI_HIP_VERSION_H

#define TKH_VERSION_MAJOR 0
#define TKH_VERSION_MINOR 1
#define TKH_VERSION_PATCH 0

#define TKH_VERSION_NUMBER (TKH_VERSION_MAJOR * 10000 + TKH_VERSION_MINOR * 100 + TKH_VERSION_PATCH)

#endif
