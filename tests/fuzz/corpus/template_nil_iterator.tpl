/ORA/LE_H

@ for _, k in ipairs(kernels) do
#include ($(k.oracle_header)"
@ end

#endif
