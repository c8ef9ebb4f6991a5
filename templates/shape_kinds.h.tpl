/* $(do_not_edit) */
/* The shapes of kernels (tkh_kernel_info.shape_kind), numbered in the generator's order
 * (gen/tkh/ops.lua's SHAPE_ORDER): the runtime has one module per shape, in a table
 * indexed by these (runtime/src/shapes). */
#ifndef TOKITAI_HIP_SHAPE_KINDS_H
#define TOKITAI_HIP_SHAPE_KINDS_H

typedef enum tkh_shape_kind {
@ for i, s in ipairs(shapes) do
    TKH_SHAPE_$(s:upper()) = $(i - 1),
@ end
} tkh_shape_kind;

#define TKH_SHAPE_KINDS $(#shapes)

#endif
