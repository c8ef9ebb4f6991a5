/* $(do_not_edit) */
/* $(k.op.name) over $(k.label) along one axis of a plan (tokitai_hip/codegen/plan.h: dimension 0
 * is the axis, the rest are kept). Reduction stages in order, each folded over the row,
 * then $(k.map and "the map of each element to the output" or "the post step to the row's one output").
 * Rows layout (the axis is contiguous in the input): a group of threads a row, shaped by
 * tkh_norm_shape_of. Where every array allows 16-byte vectors and the row fits, the group's
 * size and the vectors each thread keeps in registers are template parameters of
 * _rows_cached: the row is read from memory once. Otherwise _rows reads the row again
 * each stage, but for what of a row past the registers it keeps in shared memory. Each
 * stage folds the group's threads in a butterfly of lane exchanges (and, for a group of
 * more than 32, the 32-lane slices' results once more), so every thread has the result. Columns layout: a thread a row,
 * consecutive rows on consecutive threads, each stage a sequential fold.
 * docs/normalizations.md. */
#include "tokitai_hip/codegen/hip_platform.h"
#include "tokitai_hip/codegen/plan_walk.h"
#include "tokitai_hip/codegen/thread_group.h"
#include "$(k.oracle_header)"

@ local S, A, O = k.type.c, k.acc.compute, k.out_type
@ local x = k.inputs[1]
@ local arrays = #k.inputs + 1
@ local out_index = #k.inputs
@ local V = 16 // (k.type.bits // 8)
@ -- The arrays as __restrict__: a thread reads only the elements it writes, and each before
@ -- it writes them, so that an output over its input (in place) is still safe, and the
@ -- compiler may issue a column's loads ahead of the stores before them.
@ local params, args = {}, {}
@ for i, a in ipairs(k.inputs) do
@   params[#params + 1] = "const " .. a.type.c .. " *__restrict__ p_" .. a.name
@   args[#args + 1] = "(const " .. a.type.c .. " *)inputs[" .. (i - 1) .. "]"
@ end
@ params[#params + 1] = O.c .. " *__restrict__ p_out"
@ args[#args + 1] = "(" .. O.c .. " *)outputs[0]"
@ for _, s in ipairs(k.scalars) do
@   params[#params + 1] = s.type.c .. " p_" .. s.name
@   args[#args + 1] = "*(const " .. s.type.c .. " *)scalars[" .. s.index .. "]"
@ end
@ -- How the cached kernel keeps the last stage's values for a map that reuses them
@ -- (k.reuse): over the cached element where it has the compute type already, else in an
@ -- array of its own beside the cache for as many vectors as fit (tkhn_kept).
@ local keep = k.reuse and (S == A and "over" or "beside")
@ -- A pack of V elements of type t as the kernels hold it (types.lua's 'pack': bf16 as
@ -- 32-bit words, each element widened with one shift or mask), and its element tkhn_e.
@ local function pack_of(t) return t.pack and (t.pack .. "<V>") or ("tkh_pack<" .. t.c .. ", V>") end
@ local function element_of(t, p)
@   return t.pack and (t.pack .. "_at(" .. p .. ", tkhn_e)") or load(t, p .. ".e[tkhn_e]")
@ end
@ -- The kernels' own names start with tkhn_ (an op file's names may not: gen/tkh/shapes/normalization.lua).
@ -- The rows layout's element e of vector tkhn_vi: the input from pack tkhn_px, the
@ -- columns from their packs (a column not given is its default), in the compute type.
@ local function vector_element(indent)
$(indent)const $(A) $(x.name) = ($(A))$(element_of(x.type, "tkhn_px"));
@   for _, c in ipairs(k.columns) do
$(indent)const $(A) $(c.name) = p_$(c.name) ? ($(A))$(element_of(c.type, "tkhn_c_" .. c.name)) : ($(A))($(c.default or "0"));
@   end
@ end
@ -- Column c's pack of vector tkhn_vi.
@ local function column_pack(c)
@   return "*(const " .. pack_of(c.type) .. " *)(p_" .. c.name .. " + tkhn_at[" .. c.index .. "] + (O)tkhn_vi * tkhn_step[" .. c.index .. "])"
@ end
@ -- Reads the columns' packs of vector tkhn_vi.
@ local function column_packs(indent)
@   for _, c in ipairs(k.columns) do
$(indent)$(pack_of(c.type)) tkhn_c_$(c.name) = {};
$(indent)if (p_$(c.name))
$(indent)    tkhn_c_$(c.name) = $(column_pack(c));
@   end
@ end
@ -- The columns layout's element at index r of the row.
@ local function element(indent, r)
$(indent)const $(A) $(x.name) = ($(A))$(load(x.type, "p_" .. x.name .. "[tkhn_at[0] + (O)(" .. r .. ") * tkhn_s[0]]"));
@   for _, c in ipairs(k.columns) do
$(indent)const $(A) $(c.name) = p_$(c.name) ? ($(A))$(load(c.type, "p_" .. c.name .. "[tkhn_at[" .. c.index .. "] + (O)(" .. r .. ") * tkhn_s[" .. c.index .. "]]")) : ($(A))($(c.default or "0"));
@   end
@ end
@ local function fold(indent, st, i)
$(indent)tkhn_acc$(i) = $(k.symbol)_combine$(i)(tkhn_acc$(i), ($(A))($(st.map)));
@ end
@ local function out_value(map)
@   return store(O, "(" .. O.compute .. ")(" .. (map or k.map) .. ")")
@ end
@ local function store_out(indent, r)
$(indent)p_out[tkhn_at[$(out_index)] + (O)($(r)) * tkhn_s[$(out_index)]] = $(out_value());
@ end
@ -- The rows layout's work on vector tkhn_vi of the row, x's pack in tkhn_px: stage i's
@ -- fold, or (i = nil) the map's store. 'kept' (the cached kernel of an op whose map
@ -- reuses the last stage's values): where the last stage keeps them and the map finds
@ -- them, "over" the cached element (tkhn_v) or "beside" it (tkhn_t).
@ local function vector_body(indent, i, kept, batched)
@   if batched then
@     for _, c in ipairs(k.columns) do
$(indent)const $(pack_of(c.type)) tkhn_c_$(c.name) = tkhn_cb_$(c.name)[tkhn_j];
@     end
@   else
@     column_packs(indent)
@   end
@   if not i then
$(indent)tkh_pack<$(O.c), V> tkhn_po;
@   end
$(indent)#pragma unroll
$(indent)for (int tkhn_e = 0; tkhn_e < V; ++tkhn_e) {
@   vector_element(indent .. "    ")
@   local slot = kept == "over" and "tkhn_v[tkhn_j].e[tkhn_e]" or "tkhn_t[tkhn_j * V + tkhn_e]"
@   if i and kept and i == #k.stages then
$(indent)    const $(A) tkhn_value = ($(A))($(k.stages[i].map));
$(indent)    $(slot) = tkhn_value;
$(indent)    tkhn_acc$(i) = $(k.symbol)_combine$(i)(tkhn_acc$(i), tkhn_value);
@   elseif i then
@     fold(indent .. "    ", k.stages[i], i)
@   elseif kept then
$(indent)    const $(A) tkhn_value = $(slot);
$(indent)    tkhn_po.e[tkhn_e] = $(out_value(k.reuse));
@   else
$(indent)    tkhn_po.e[tkhn_e] = $(out_value());
@   end
$(indent)}
@   if not i then
$(indent)*(tkh_pack<$(O.c), V> *)(p_out + tkhn_at[$(out_index)] + (O)tkhn_vi * tkhn_step[$(out_index)]) = tkhn_po;
@   end
@ end
@ local function x_pack()
@   return "*(const " .. pack_of(x.type) .. " *)(p_" .. x.name .. " + tkhn_at[0] + (O)tkhn_vi * tkhn_step[0])"
@ end
$(macros(k))

@ for i, st in ipairs(k.stages) do
__device__ static inline $(A) $(k.symbol)_combine$(i)($(A) a, $(A) b)
{
    return ($(A))($(st.combine));
}

@ end
/* Folds each thread's accumulator over its group of 'group' threads (a power of two;
 * above 32, the whole block, with 'part' the block's shared slots for it); every thread
 * gets the result, the same bits on each (the combines are commutative). */
template <typename F>
__device__ static inline $(A) $(k.symbol)_group_fold($(A) acc, unsigned group, $(A) *part, F combine)
{
    for (unsigned mask = (group < 32 ? group : 32) / 2; mask > 0; mask >>= 1)
        acc = combine(acc, tkh_lane_xor(acc, mask));
    if (group > 32) {
        if ((threadIdx.x & 31) == 0)
            part[threadIdx.x / 32] = acc;
        __syncthreads();
        const unsigned slices = group / 32;
        acc = part[threadIdx.x & (slices - 1)];
        for (unsigned mask = slices / 2; mask > 0; mask >>= 1)
            acc = combine(acc, tkh_lane_xor(acc, mask));
    }
    return acc;
}

@ local function scalars()
    const $(A) n = ($(A))tkhn_count; /* the row's length, for the expressions that name it */
    (void)n;
@   for _, sc in ipairs(k.scalars) do
    const $(sc.type.compute) $(sc.name) = $(load(sc.type, "p_" .. sc.name));
@   end
@ end
@ local function strides()
    O tkhn_s[$(arrays)];
#pragma unroll
    for (int tkhn_a = 0; tkhn_a < $(arrays); ++tkhn_a)
        tkhn_s[tkhn_a] = (O)tkhn_p.stride[tkhn_a][0];
@ end
@ local function post_of(i, st)
        const $(A) $(st.name) = [&]() { const $(A) a = tkhn_acc$(i); (void)a; return ($(A))($(st.post)); }();
@ end
@ -- A row's walk by its group in the cached kernel: stage i's fold (nil: the map's stores)
@ -- over the NV vectors a thread keeps, with the values kept as 'kept' says. Whole: every
@ -- vector is there (a group past the last row walks row 0 and stores nothing).
@ local function cached_walk(i, kept, ind)
$(ind)#pragma unroll
$(ind)for (int tkhn_j = 0; tkhn_j < NV; ++tkhn_j) {
$(ind)    const U tkhn_vi = tkhn_lane + (U)tkhn_j * G;
$(ind)    if ($(i and "Whole || " or "Whole ? tkhn_real : ")tkhn_vi < tkhn_mine) {
$(ind)        const $(pack_of(x.type)) tkhn_px = tkhn_v[tkhn_j];
@   if kept == "beside" then
$(ind)        if (tkhn_j < tkhn_kept) {
@     vector_body(ind .. "            ", i, kept)
$(ind)        } else {
@     vector_body(ind .. "            ", i, nil)
$(ind)        }
@   else
@     vector_body(ind .. "        ", i, kept)
@   end
$(ind)    }
$(ind)}
@ end
@ -- Stage i's walk, or the map's (nil), in the cached kernel: the last stage's and the
@ -- map's with the values kept where there are.
@ local function cached_stage(i)
@   local last = i == nil or i == #k.stages
@   cached_walk(i, last and k.map and keep or nil, "        ")
@ end
@ -- A stage's group fold and post step.
@ local function fold_group(i, st, group)
        tkhn_acc$(i) = $(k.symbol)_group_fold(tkhn_acc$(i), $(group), tkhn_part[tkhn_parity][$(i - 1)],
            [](const $(A) a, const $(A) b) { return $(k.symbol)_combine$(i)(a, b); });
@   post_of(i, st)
@ end
@ local function post_store()
        if (tkhn_lane == 0 && tkhn_row < tkhn_rows)
            p_out[tkhn_at[$(out_index)]] = $(store(O, "(" .. O.compute .. ")(" .. k.post .. ")"));
@ end
@ local steps = {}
@ for i = 1, arrays do steps[i] = "V" end
/* Rows that fit in registers, every array that walks them in 16-byte vectors of V elements
 * (contiguous along the axis, aligned; 32-bit offsets): G threads a row (a power of two; up
 * to 32, TKH_NORM_ROWS_BLOCK / G rows a block), each keeping NV vectors of it, so that the
 * row is read once, every load in flight before the first is used. tkh_norm_shape_of picks
 * G and NV; as template parameters they let the compiler unroll each walk into fixed
 * offsets and the folds into fixed exchanges. Whole: the row is G * NV vectors, so that no
 * walk tests which vectors are there (nothing stands between a column's loads and those of
 * the vectors after it, or between the vectors' folds). */
template <unsigned G, int NV, int V, bool Whole>
__global__ void TKH_NORM_BOUNDS(G > 32 ? G : TKH_NORM_ROWS_BLOCK) $(k.symbol)_rows_cached($(table.concat(params, ", ")), const tkh_plan tkhn_p)
{
    typedef typename tkh_plan_index<false>::U U;
    typedef typename tkh_plan_index<false>::O O;
    constexpr U tkhn_per_block = (G > 32 ? G : TKH_NORM_ROWS_BLOCK) / G;
    __shared__ $(A) tkhn_part[2][$(#k.stages)][G > 32 ? G / 32 : 1];
    const U tkhn_rows = (U)tkhn_p.count, tkhn_count = (U)tkhn_p.reduce_count;
@ scalars()
    const O tkhn_step[$(arrays)] = { $(table.concat(steps, ", ")) }; /* elements from one vector to the next */
    const unsigned tkhn_lane = threadIdx.x % G;
    const U tkhn_vectors = tkhn_count / V;
    unsigned tkhn_parity = 0; /* the shared slots alternate between a block's rows */
    for (U tkhn_base = blockIdx.x * tkhn_per_block; tkhn_base < tkhn_rows;
         tkhn_base += gridDim.x * tkhn_per_block, tkhn_parity ^= 1) {
        /* every group takes part in the folds; one past the last row walks no vectors */
        const U tkhn_row = tkhn_base + threadIdx.x / G;
        const bool tkhn_real = tkhn_row < tkhn_rows;
        const U tkhn_mine = tkhn_real ? tkhn_vectors : 0;
        O tkhn_at[$(arrays)] = { 0 };
        tkh_plan_offsets<false, $(arrays)>(tkhn_p, 1, tkhn_p.ndim, tkhn_real ? tkhn_row : 0, tkhn_at);
        $(pack_of(x.type)) tkhn_v[NV];
#pragma unroll
        for (int tkhn_j = 0; tkhn_j < NV; ++tkhn_j) {
            const U tkhn_vi = tkhn_lane + (U)tkhn_j * G;
            if (Whole || tkhn_vi < tkhn_mine)
                tkhn_v[tkhn_j] = $(x_pack());
        }
@ if keep == "beside" and k.map then
        /* the values of the thread's first vectors, as many as fit beside the cache within
         * 64 registers (every vector's up to 32 values; else 16, 32 spilled): the rest are
         * evaluated again in the map */
        constexpr int tkhn_kept = NV * V <= 32 ? NV : 16 / V;
        $(A) tkhn_t[tkhn_kept * V];
@ end
@ for i, st in ipairs(k.stages) do
        $(A) tkhn_acc$(i) = ($(A))($(st.identity));
@   cached_stage(i)
@   fold_group(i, st, "G")
@ end
@ if k.map then
@   cached_stage(nil)
@ else
@   post_store()
@ end
    }
}

/* Any row the cached kernel does not take (an array without vectors, 64-bit offsets, a
 * row past the registers), each stage reading the row again, TKH_NORM_BATCH vectors'
 * loads of a thread in flight before their work. V: elements a vector, 1 where some array
 * does not allow vectors. G: the group, 0 where it comes at run time (tkhn_group_given).
 * Rows past the registers (G = TKH_NORM_MOST_GROUP) also keep each thread's first
 * tkhn_shared vectors in dynamic shared memory, put there by the first stage, so that the
 * later stages read only the rest again (the rows in flight do not fit in L2: f32 rows of
 * 65536 went to memory three times). */
template <bool Wide, int V, unsigned G>
__global__ void TKH_NORM_BOUNDS(G ? G : TKH_NORM_MOST_GROUP) $(k.symbol)_rows($(table.concat(params, ", ")), const tkh_plan tkhn_p, unsigned tkhn_group_given, unsigned tkhn_shared)
{
    const unsigned tkhn_group = G ? G : tkhn_group_given;
    extern __shared__ tkh_pack<unsigned char, 16> tkhn_dynamic[];
    $(pack_of(x.type)) *const tkhn_kept = ($(pack_of(x.type)) *)tkhn_dynamic; /* [vector][lane] */
    typedef typename tkh_plan_index<Wide>::U U;
    typedef typename tkh_plan_index<Wide>::O O;
    __shared__ $(A) tkhn_part[2][$(#k.stages)][TKH_NORM_MOST_GROUP / 32];
    const U tkhn_rows = (U)tkhn_p.count, tkhn_count = (U)tkhn_p.reduce_count;
@ scalars()
@ strides()
    O tkhn_step[$(arrays)]; /* elements from one vector to the next */
#pragma unroll
    for (int tkhn_a = 0; tkhn_a < $(arrays); ++tkhn_a)
        tkhn_step[tkhn_a] = V > 1 ? (O)V : tkhn_s[tkhn_a];
    const unsigned tkhn_lane = threadIdx.x & (tkhn_group - 1);
    const U tkhn_per_block = blockDim.x / tkhn_group, tkhn_vectors = tkhn_count / V;
    unsigned tkhn_parity = 0; /* the shared slots alternate between a block's rows */
    for (U tkhn_base = blockIdx.x * tkhn_per_block; tkhn_base < tkhn_rows;
         tkhn_base += gridDim.x * tkhn_per_block, tkhn_parity ^= 1) {
        /* every group takes part in the folds; one past the last row walks no vectors */
        const U tkhn_row = tkhn_base + threadIdx.x / tkhn_group;
        const U tkhn_mine = tkhn_row < tkhn_rows ? tkhn_vectors : 0;
        O tkhn_at[$(arrays)] = { 0 };
        tkh_plan_offsets<Wide, $(arrays)>(tkhn_p, 1, tkhn_p.ndim, tkhn_row < tkhn_rows ? tkhn_row : 0, tkhn_at);
@ -- The columns' packs of a batch are read with its input's (f32 layer_norm at rows of
@ -- 65536: 0.97 -> 1.07 x torch, H200 2026-12-02), where no conversions are then kept
@ -- in registers (16-bit types spilled).
@ local batch_columns = S == A
@ -- Stage i's walk (nil: the map's): vector tkhn_k of the thread's (k-th of its own) is in
@ -- shared memory if k < tkhn_shared, but for the first stage, which puts it there.
@ local function walk(i)
#pragma unroll 1
        for (U tkhn_first = tkhn_lane, tkhn_k0 = 0; tkhn_first < tkhn_mine;
             tkhn_first += TKH_NORM_BATCH * tkhn_group, tkhn_k0 += TKH_NORM_BATCH) {
            $(pack_of(x.type)) tkhn_b[TKH_NORM_BATCH];
@   for _, c in ipairs(batch_columns and k.columns or {}) do
            $(pack_of(c.type)) tkhn_cb_$(c.name)[TKH_NORM_BATCH];
@   end
#pragma unroll
            for (int tkhn_j = 0; tkhn_j < TKH_NORM_BATCH; ++tkhn_j) {
                const U tkhn_vi = tkhn_first + (U)tkhn_j * tkhn_group;
@   for _, c in ipairs(batch_columns and k.columns or {}) do
                tkhn_cb_$(c.name)[tkhn_j] = {};
                if (p_$(c.name) && tkhn_vi < tkhn_mine)
                    tkhn_cb_$(c.name)[tkhn_j] = $(column_pack(c));
@   end
@   if i == 1 then
                if (tkhn_vi < tkhn_mine)
                    tkhn_b[tkhn_j] = $(x_pack());
@   else
                const U tkhn_k = tkhn_k0 + (U)tkhn_j;
                if (tkhn_vi < tkhn_mine)
                    tkhn_b[tkhn_j] = G && tkhn_k < tkhn_shared ? tkhn_kept[tkhn_k * tkhn_group + tkhn_lane] : $(x_pack());
@   end
            }
#pragma unroll
            for (int tkhn_j = 0; tkhn_j < TKH_NORM_BATCH; ++tkhn_j) {
                const U tkhn_vi = tkhn_first + (U)tkhn_j * tkhn_group;
                if (tkhn_vi < tkhn_mine) {
                    const $(pack_of(x.type)) tkhn_px = tkhn_b[tkhn_j];
@   if i == 1 then
                    if (G && tkhn_k0 + (U)tkhn_j < tkhn_shared)
                        tkhn_kept[(tkhn_k0 + (U)tkhn_j) * tkhn_group + tkhn_lane] = tkhn_px;
@   end
@   vector_body("                    ", i, nil, batch_columns)
                }
            }
        }
@ end
@ for i, st in ipairs(k.stages) do
        $(A) tkhn_acc$(i) = ($(A))($(st.identity));
@   walk(i)
@   fold_group(i, st, "tkhn_group")
@ end
@ if k.map then
@   walk(nil)
@ else
@   post_store()
@ end
    }
}

template <bool Wide>
__global__ void __launch_bounds__(256) $(k.symbol)_columns($(table.concat(params, ", ")), const tkh_plan tkhn_p)
{
    typedef typename tkh_plan_index<Wide>::U U;
    typedef typename tkh_plan_index<Wide>::O O;
    const U tkhn_rows = (U)tkhn_p.count, tkhn_count = (U)tkhn_p.reduce_count;
@ scalars()
@ strides()
    for (U tkhn_row = (U)blockIdx.x * blockDim.x + threadIdx.x; tkhn_row < tkhn_rows;
         tkhn_row += (U)gridDim.x * blockDim.x) {
        O tkhn_at[$(arrays)] = { 0 };
        tkh_plan_offsets<Wide, $(arrays)>(tkhn_p, 1, tkhn_p.ndim, tkhn_row, tkhn_at);
@ for i, st in ipairs(k.stages) do
        $(A) tkhn_acc$(i) = ($(A))($(st.identity));
        for (U tkhn_r = 0; tkhn_r < tkhn_count; ++tkhn_r) {
@   element("            ", "tkhn_r")
@   fold("            ", st, i)
        }
@   post_of(i, st)
@ end
@ if k.map then
        for (U tkhn_r = 0; tkhn_r < tkhn_count; ++tkhn_r) {
@   element("            ", "tkhn_r")
@   store_out("            ", "tkhn_r")
        }
@ else
        p_out[tkhn_at[$(out_index)]] = $(store(O, "(" .. O.compute .. ")(" .. k.post .. ")"));
@ end
    }
}

$(unmacros(k))

/* Whether every array that walks the rows allows vectors of $(V): contiguous along the
 * axis, each row's start a whole number of vectors from a pointer aligned for them. */
static int $(k.symbol)_vectors(const void *const *inputs, void *const *outputs, const tkh_plan *p)
{
@ local sizes = {}
@ for _, a in ipairs(k.inputs) do sizes[#sizes + 1] = "sizeof(" .. a.type.c .. ")" end
@ sizes[#sizes + 1] = "sizeof(" .. O.c .. ")"
    const size_t size[$(arrays)] = { $(table.concat(sizes, ", ")) };
    if (p->reduce_count % $(V) != 0)
        return 0;
    for (int a = 0; a < $(arrays); ++a) {
        const void *base = a < $(out_index) ? inputs[a] : outputs[0];
        if (base == NULL || p->stride[a][0] == 0) /* a column not given; a post step's output */
            continue;
        const size_t align = $(V) * size[a] < 16 ? $(V) * size[a] : 16;
        if (p->stride[a][0] != 1 || (uintptr_t)base % align != 0)
            return 0;
        for (int d = 1; d < p->ndim; ++d)
            if (p->stride[a][d] % $(V) != 0)
                return 0;
    }
    return 1;
}

/* The launchers: over a plan (the layout's kernel; the block the runtime chose, which for
 * rows must be tkh_norm_shape_of's), and over n contiguous elements as one row. */
extern "C" TKH_HIDDEN int $(k.launch)_plan(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars;
    (void)scratch;
    const tkh_norm_shape shape = tkh_norm_shape_of(plan->reduce_count, sizeof($(S)));
    if (plan->reduced != 1 || grid == 0 || block == 0 || block > 1024 || (block & (block - 1)) != 0
        || (plan->mode == TKH_PLAN_ROWS && block != shape.block))
        return (int)hipErrorInvalidValue;
    const hipStream_t s = (hipStream_t)stream;
    if (plan->mode == TKH_PLAN_ROWS) {
        const bool vectors = $(k.symbol)_vectors(inputs, outputs, plan);
        if (!plan->wide && vectors && shape.vectors > 0) {
            /* every shape tkh_norm_shape_of gives to a row it keeps in registers */
@ -- The whole-row kernel where its folds' conversions, which the compiler then keeps from
@ -- stage to stage, fit in registers: the cache holds the compute type, or 32 elements a
@ -- thread at most (16-bit rows of 8 vectors a thread spilled and ran at half the speed,
@ -- H200 2026-12-02).
@ local function whole_pays(nv) return S == A or nv * V <= 32 end
@ -- TKH_NORM_VECTORS (4) a thread up to TKH_NORM_VECTORS_GROUP (256) threads, then
@ -- TKH_NORM_MOST_VECTORS (8) up to TKH_NORM_MOST_GROUP (1024): plan.h's rule.
@ local shapes = {}
@ for g = 0, 8 do shapes[#shapes + 1] = { 1 << g, 4 } end
@ for g = 8, 10 do shapes[#shapes + 1] = { 1 << g, 8 } end
            const bool whole = plan->reduce_count == (int64_t)shape.group * shape.vectors * $(V);
@ local chain = ""
@ for _, sh in ipairs(shapes) do
@   for _, whole in ipairs(whole_pays(sh[2]) and { "true", "false" } or { "false" }) do
            $(chain)if (shape.group == $(sh[1]) && shape.vectors == $(sh[2])$(whole_pays(sh[2]) and (" && whole == " .. whole) or ""))
                hipLaunchKernelGGL(($(k.symbol)_rows_cached<$(sh[1]), $(sh[2]), $(V), $(whole)>), dim3(grid), dim3(block), 0, s, $(table.concat(args, ", ")), *plan);
@     chain = "else "
@   end
@ end
            else /* a shape the list above lacks: plan.h and this template disagree */
                return (int)hipErrorInvalidValue;
        } else if (!plan->wide && vectors) {
            /* a row past the registers: each thread keeps as many of its vectors in
             * shared memory as a block can have */
            const unsigned mine = (unsigned)((plan->reduce_count / $(V) + shape.group - 1) / shape.group);
            unsigned kept = 0;
            const hipError_t e = tkh_dynamic_shared((const void *)$(k.symbol)_rows<false, $(V), TKH_NORM_MOST_GROUP>,
                (size_t)shape.group * sizeof(tkh_pack<$(S), $(V)>), mine, &kept);
            if (e != hipSuccess)
                return (int)e;
            hipLaunchKernelGGL(($(k.symbol)_rows<false, $(V), TKH_NORM_MOST_GROUP>), dim3(grid), dim3(block), kept * shape.group * sizeof(tkh_pack<$(S), $(V)>), s,
                $(table.concat(args, ", ")), *plan, shape.group, kept);
        } else if (plan->wide && vectors) {
            hipLaunchKernelGGL(($(k.symbol)_rows<true, $(V), 0>), dim3(grid), dim3(block), 0, s, $(table.concat(args, ", ")), *plan, shape.group, 0u);
        } else if (plan->wide) {
            hipLaunchKernelGGL(($(k.symbol)_rows<true, 1, 0>), dim3(grid), dim3(block), 0, s, $(table.concat(args, ", ")), *plan, shape.group, 0u);
        } else {
            hipLaunchKernelGGL(($(k.symbol)_rows<false, 1, 0>), dim3(grid), dim3(block), 0, s, $(table.concat(args, ", ")), *plan, shape.group, 0u);
        }
    } else if (plan->wide) {
        hipLaunchKernelGGL($(k.symbol)_columns<true>, dim3(grid), dim3(block), 0, s, $(table.concat(args, ", ")), *plan);
    } else {
        hipLaunchKernelGGL($(k.symbol)_columns<false>, dim3(grid), dim3(block), 0, s, $(table.concat(args, ", ")), *plan);
    }
    return (int)hipGetLastError();
}

extern "C" TKH_HIDDEN int $(k.launch)(const void *const *inputs, void *const *outputs,
    const void *const *scalars, size_t n, unsigned grid, unsigned block, void *scratch, void *stream)
{
    tkh_plan plan;
    tkh_norm_row_plan(&plan, n, $(arrays), $(k.map and 1 or 0));
    (void)grid;
    (void)block;
    return $(k.launch)_plan(inputs, outputs, scalars, &plan, 1, tkh_norm_shape_of((int64_t)n, sizeof($(S))).block, scratch, stream);
}
