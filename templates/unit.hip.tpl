/* $(do_not_edit) */
/* The kernels of '$(unit.name)', one translation unit: one compiler run builds them all
 * (the compiler's start-up, not the kernels, is most of a kernel's build time). Each
 * kernel keeps its own source file, and with it its own fingerprint. */
@ for _, k in ipairs(unit.kernels) do
#include "../kernels/$(k.id).hip"
@ end
