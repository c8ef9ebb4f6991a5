/* The generator's template engine and op validation, driven through Lua's C API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

/* Lua helpers for the tests: ops(text, types?) loads op text from a temporary file.
 * A [[long string]] drops its first newline: op text starts on line 1. */
static const char *const PRELUDE =
    "package.path = '" TKH_SOURCE_DIR "/gen/?.lua;' .. package.path\n"
    "template = require 'tkh.template'\n"
    "function ops(text, filter)\n"
    "  local path = os.tmpname()\n"
    "  local f = assert(io.open(path, 'w')); f:write(text); f:close()\n"
    "  local ok, res = pcall(require('tkh.ops').load, { path }, filter)\n"
    "  os.remove(path)\n"
    "  if not ok then error(res, 0) end\n"
    "  return res\n"
    "end\n";

static int setup(void **state)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    if (luaL_dostring(L, PRELUDE) != LUA_OK)
        return -1;
    *state = L;
    return 0;
}

static int teardown(void **state)
{
    lua_close(*state);
    return 0;
}

/* Runs 'code' (which returns a string); returns it, or the error text when ok is 0. */
static const char *run(lua_State *L, const char *code, int *ok)
{
    lua_settop(L, 0);
    *ok = luaL_dostring(L, code) == LUA_OK;
    return luaL_tolstring(L, -1, NULL);
}

static void expect_text(lua_State *L, const char *code, const char *want)
{
    int ok = 0;
    const char *got = run(L, code, &ok);
    if (!ok)
        fail_msg("Lua failed: %s", got);
    assert_string_equal(got, want);
}

static void expect_error(lua_State *L, const char *code, const char *fragment)
{
    int ok = 1;
    const char *got = run(L, code, &ok);
    if (ok)
        fail_msg("expected an error containing '%s', got '%s'", fragment, got);
    if (strstr(got, fragment) == NULL)
        fail_msg("expected an error containing '%s', got '%s'", fragment, got);
}

static void template_inlines_and_loops(void **state)
{
    expect_text(*state,
        "return template.compile('#include <x.h>\\nint $(name) = $(1 + 1);\\n"
        "@ for i = 1, 2 do\\nv$(i)\\n@ end\\n', 't.tpl'){ name = 'n' }",
        "#include <x.h>\nint n = 2;\nv1\nv2\n");
}

static void template_errors_name_the_template_line(void **state)
{
    expect_error(*state, "return template.compile('a\\nb\\nc $(missing)\\n', 'templates/x.tpl'){}",
        "templates/x.tpl:3: template value is nil");
    expect_error(*state, "return template.compile('a\\n@ if then\\n', 'templates/y.tpl'){}",
        "templates/y.tpl:2:");
    expect_error(*state, "return template.compile('x $(a\\n', 'templates/z.tpl'){}",
        "templates/z.tpl:1: unclosed '$(' in template text");
    expect_error(*state, "return template.compile('$(t)\\n', 'w.tpl'){ t = {} }",
        "w.tpl:1: template value is a table, not text");
}

/* The sandbox (gen/tkh/sandbox.lua) stops a template that loops or grows, naming its
 * line; budgets are lowered here so that the test takes milliseconds. */
static void template_budgets_stop_runaway_templates(void **state)
{
    lua_State *L = *state;
    expect_text(L, "local s = require 'tkh.sandbox'\n"
                   "s.INSTRUCTIONS, s.MEMORY_MIB = 1000000, 16\nreturn 'ok'", "ok");
    expect_error(L, "return template.compile('x\\n@ while true do end\\n', 'templates/x.tpl'){}",
        "templates/x.tpl:2: the template ran for more than 1000000 instructions");
    expect_error(L, "return template.compile('@ local t = {}\\n@ for i = 1, 1e9 do t[i] = { i } end\\n', 'g.tpl'){}",
        "g.tpl:2: the template used more than 16 MiB of memory");
    expect_error(L, "return template.compile('@ local s = (\"ab\"):rep(1e9)\\n', 'r.tpl'){}",
        "r.tpl:1: the template asked string.rep for 2000000000 bytes, more than its 16 MiB");
    /* The hook cannot be escaped: no debug library, no coroutines, no pcall. */
    expect_error(L, "return template.compile('@ debug.sethook()\\n', 'd.tpl'){}",
        "d.tpl:1: attempt to index a nil value (global 'debug')");
    expect_error(L, "return template.compile('@ coroutine.wrap(print)()\\n', 'c.tpl'){}",
        "c.tpl:1: attempt to index a nil value (global 'coroutine')");
    expect_error(L, "return template.compile('@ pcall(error)\\n', 'p.tpl'){}",
        "p.tpl:1: attempt to call a nil value (global 'pcall')");
    /* Generated files must not vary from run to run: no math.random. */
    expect_error(L, "return template.compile('$(math.random())\\n', 'm.tpl'){}",
        "m.tpl:1: attempt to call a nil value (field 'random')");
    /* After a stopped chunk, the generator's own string.rep is whole again. */
    expect_text(L, "return ('ab'):rep(3)", "ababab");
}

static void ops_budgets_stop_runaway_op_files(void **state)
{
    lua_State *L = *state;
    expect_text(L, "require('tkh.sandbox').INSTRUCTIONS = 1000000\nreturn 'ok'", "ok");
    expect_error(L, "return ops([[\nlocal n = 0\nwhile n >= 0 do n = n + 1 end\n]])",
        ":2: the op file ran for more than 1000000 instructions");
    expect_error(L, "return ops([[\nos.exit(1)\n]])", ":1: attempt to index a nil value (global 'os')");
}

static void template_skips_parentheses_in_strings(void **state)
{
    expect_text(*state, "return template.compile('$(f(\")\"))!\\n', 't.tpl'){ f = function(s) return s end }",
        ")!\n");
}

#define OP(body) "return #ops([[\nelementwise {\n name = 'x', arity = 2, types = { 'i32' },\n" \
                 " semantics = 's', compute = { integer = 'a + b' },\n" body "}\n]])"

static void ops_accept_a_valid_op(void **state)
{
    expect_text(*state, OP(""), "1");
}

static void ops_reject_unknown_fields(void **state)
{
    expect_error(*state, OP(" semantic = 'typo',\n"),
        ":1: op 'x': unknown field 'semantic' (known: arity, compare, compute, degradations, inputs, "
        "name, non_claims, obligations, outputs, reference, semantics, steps, types)");
}

static void ops_reject_duplicates(void **state)
{
    expect_error(*state,
        "return ops([[\nelementwise { name = 'x', arity = 1, types = { 'i32' }, semantics = 's', compute = { any = 'a' } }\n"
        "elementwise { name = 'x', arity = 1, types = { 'i32' }, semantics = 's', compute = { any = 'a' } }\n]])",
        ":2: op 'x': defined twice (first at ");
}

static void ops_need_an_expression_per_type(void **state)
{
    expect_error(*state,
        "return ops([[\nelementwise { name = 'x', arity = 1, types = { 'u8' }, semantics = 's', compute = { signed = 'a' } }\n]])",
        ":1: op 'x': no compute expression for type 'u8' (give one of: u8, unsigned, integer, any)");
    expect_error(*state,
        "return ops([[\nelementwise { name = 'x', arity = 1, types = { 'u8' }, semantics = 's', compute = { flaot = 'a' } }\n]])",
        "unknown compute key 'flaot'");
}

static void ops_check_operands_against_arity(void **state)
{
    expect_error(*state,
        "return ops([[\nelementwise { name = 'neg', arity = 1, types = { 'i32' }, semantics = 's', compute = { any = '-b' } }\n]])",
        ":1: op 'neg': compute expression '-b' uses operand 'b' but arity is 1");
}

static void ops_reject_code_outside_one_expression(void **state)
{
    const char *bad[] = { "a; b", "a } { b", "a /* c */", "a // c", "a\\\\n#define X" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char code[512];
        snprintf(code, sizeof code,
            "return ops([[\nelementwise { name = 'x', arity = 2, types = { 'i32' }, semantics = 's', "
            "compute = { any = '%s' } }\n]])", bad[i]);
        expect_error(*state, code, "(only one C expression is allowed)");
    }
}

static void ops_filter_types(void **state)
{
    expect_text(*state,
        "local o = ops([[\nelementwise { name = 'x', arity = 1, types = { 'i32', 'u32', 'i64' }, "
        "semantics = 's', compute = { any = 'a' } }\n]], { types = { u32 = true } })\n"
        "return #o[1].kernels .. ' ' .. o[1].kernels[1].type.name",
        "1 u32");
}

#define SIG(fields) "return ops([[\nelementwise { name = 'x', semantics = 's', " fields " }\n]])"

static void ops_declare_signatures(void **state)
{
    /* Placeholders bound in every combination, labeled in order of first appearance. */
    expect_text(*state,
        "local o = ops([[\nelementwise { name = 'c', semantics = 's', inputs = 'From x, scalar bool s', "
        "outputs = 'To y', types = { From = { 'i8', 'f32' }, To = { 'f64', 'bool' } }, "
        "compute = function(t) return '(To)x' end }\n]])\n"
        "local labels = {}\n"
        "for _, k in ipairs(o[1].kernels) do labels[#labels + 1] = k.label .. ':' .. #k.inputs .. #k.scalars end\n"
        "return table.concat(labels, ' ')",
        "i8_f64:11 i8_bool:11 f32_f64:11 f32_bool:11");
    /* Several outputs, each its own expression and rule. */
    expect_text(*state,
        "local o = ops([[\nelementwise { name = 'd', semantics = 's', inputs = 'T a, T b', outputs = 'T q, T r', "
        "types = { 'f32' }, compute = { q = 'a / b', r = 'sin(a)' }, compare = { r = { ulps = 2 } } }\n]])\n"
        "local k = o[1].kernels[1]\n"
        "return k.outputs[1].compare .. ' ' .. k.outputs[2].compare .. ' ' .. k.outputs[2].ulps.amd",
        "exact ulp 2");
}

static void ops_reject_bad_signatures(void **state)
{
    expect_error(*state, SIG("inputs = 'f33 x', outputs = 'f32 y', compute = 'x'"),
        ":1: op 'x': inputs: unknown type 'f33' for 'x'");
    expect_error(*state, SIG("inputs = 'T x, T x', outputs = 'T y', types = { 'f32' }, compute = 'x'"),
        ":1: op 'x': inputs: name 'x' is declared twice");
    expect_error(*state, SIG("inputs = 'T x', outputs = 'T x', types = { 'f32' }, compute = 'x'"),
        ":1: op 'x': outputs: name 'x' is declared twice");
    expect_error(*state, SIG("inputs = 'A x', outputs = 'B y', types = { A = { 'f32' } }, compute = 'x'"),
        ":1: op 'x': placeholder 'B' is not bound in 'types'");
    expect_error(*state, SIG("inputs = 'A x', outputs = 'A y', types = { A = { 'f32' }, Q = { 'i8' } }, compute = 'x'"),
        ":1: op 'x': 'types' binds 'Q', which the signature does not use (placeholders: A)");
    expect_error(*state, SIG("inputs = 'A x', outputs = 'B y', types = { 'f32' }, compute = 'x'"),
        "'types' is a list, which binds one placeholder; the signature has 2 (A, B)");
    expect_error(*state, SIG("inputs = 'T x, T y', outputs = 'T z', types = { 'f32' }, compute = 'x + w'"),
        ":1: op 'x': compute expression 'x + w' uses 'w', which is not declared (operands, scalars and steps: x, y)");
    expect_error(*state, SIG("inputs = 'T x', outputs = 'T q, T r', types = { 'f32' }, compute = 'x'"),
        "2 outputs (q, r): 'compute' must give one expression per output, keyed by name");
    expect_error(*state, SIG("inputs = 'T float', outputs = 'T y', types = { 'f32' }, compute = 'y'"),
        "inputs: 'float' is not a lower-case C identifier");
    expect_error(*state, SIG("inputs = 'scalar T a', outputs = 'T y', types = { 'f32' }, compute = 'a'"),
        "inputs: at least one array is needed");
    expect_error(*state, SIG("arity = 1, inputs = 'T a', outputs = 'T y', types = { 'f32' }, compute = 'a'"),
        "'arity' is the short form of 'inputs' and 'outputs': give one or the other");
}

#define RED_OPS(fields) "ops([[\nreduction { name = 'r', semantics = 's', types = { 'i32' }, " fields " }\n]])"
#define KERNEL_OF(ops, what) "local k = " ops "[1].kernels[1]\nreturn " what

/* A reduction's identity is also its value over no elements; one without declares where
 * its folds start instead, and refuses zero elements. */
static void ops_reductions_declare_an_identity_or_a_start(void **state)
{
    expect_text(*state, KERNEL_OF(RED_OPS("combine = 'a + b', identity = '(ACC)0'"),
        "tostring(k.has_identity) .. ' ' .. k.identity"), "true (ACC)0");
    expect_text(*state, KERNEL_OF(RED_OPS("combine = 'a > b ? a : b', start = 'TMIN'"),
        "tostring(k.has_identity) .. ' ' .. k.identity"), "false TMIN");
    expect_error(*state, "return " RED_OPS("combine = 'a + b'"),
        ":1: op 'r': missing field 'identity' (what a reduction over no elements gives, and where folds start), "
        "or 'start'");
    expect_error(*state, "return " RED_OPS("combine = 'a + b', identity = '0', start = '0'"),
        "'identity' and 'start' both given");
    expect_error(*state, "return " RED_OPS("better = 'b < a', start = '0'"), "'start' is not for an index-aware reduction");
}

/* The ulp rule's absolute floor, atol: a finite number >= 0, with ulps. */
static void ops_compare_takes_an_absolute_floor(void **state)
{
#define ULP_OPS(compare) "ops([[\nelementwise { name = 'x', arity = 1, semantics = 's', types = { 'f32' }, " \
    "compute = 'exp(a)', compare = " compare " }\n]])"
    expect_text(*state, KERNEL_OF(ULP_OPS("{ ulps = 4, atol = 0x1p-126 }"), "k.outputs[1].compare .. ' ' .. "
        "require('tkh.ops').format_atol(k.outputs[1].atol) .. ' ' .. require('tkh.ops').format_atol(1e-30)"),
        "ulp 1.1754943508222875e-38 1e-30");
    expect_error(*state, "return " ULP_OPS("{ ulps = 4, atol = -1 }"), "compare atol must be a finite number >= 0, got -1");
    expect_error(*state, "return " ULP_OPS("{ ulps = 4, atol = 1/0 }"), "compare atol must be a finite number >= 0, got inf");
    expect_error(*state, "return " ULP_OPS("{ atol = 1 }"), "compare { atol = ... } needs its bound in ulps too");
    expect_error(*state, "return " ULP_OPS("{ ulps = 4, rtol = 1 }"), "unknown compare field 'rtol' (known: ulps, atol)");
#undef ULP_OPS
}

/* Expressions parsed and written back as error-bound C (gen/tkh/expr.lua). */
#define EXPR_ENV                                                                             \
    "local E = require 'tkh.expr'\n"                                                         \
    "local env = { name = function(n) return n end, exact = function(n) return n == 'x' end, " \
    "ulps = function(f) return '2' end, literal = function(t) return '(ACC)' .. t end }\n"    \
    "local function bound(t) return E.bound_c(E.parse(t, function(w) return w == 'ACC' end), t, env) end\n"

static void expressions_carry_error_bounds(void **state)
{
    expect_text(*state, EXPR_ENV "return bound('exp(x - m) / s')",
        "tkh_eb_div(tkh_eb_exp(tkh_eb_sub(x, m, U), (long double)2, U), s, U)");
    /* C's precedence; casts; literals with the value the device holds; an exact branch */
    expect_text(*state, EXPR_ENV "return bound('-(ACC)a * b + c / 2.5f')",
        "tkh_eb_add(tkh_eb_mul(tkh_eb_neg(tkh_eb_round(a, U)), b, U), "
        "tkh_eb_div(c, tkh_eb_const((long double)2.5, (long double)(ACC)2.5f), U), U)");
    expect_text(*state, EXPR_ENV "return bound('x > 0 && !(x == 1) ? fmax(x, m) : sqrt(m)')",
        "(((((x).v > 0) && !(((x).v == 1)))) ? tkh_eb_fmax(x, m) : tkh_eb_sqrt(m, U))");
    expect_text(*state, EXPR_ENV "return table.concat(E.names(E.parse('a + f(b, a) * (c ? d : e)', "
        "function() return false end)), ',')", "a,b,c,d,e");
    /* the math library's calls, which decide the wgmma kernel's stores (gen/tkh/shapes/matmul.lua) */
    expect_text(*state, EXPR_ENV "local p = function(t) return E.parse(t, function() return false end) end\n"
        "return tostring(E.calls_library(p('tkh_relu(fmax(acc, b) + sqrt(c))'))) .. ',' .. "
        "tostring(E.calls_library(p('acc * (x > 0 ? 1 : erf(acc))')))", "false,true");
}

/* A subexpression found and written over (the rows layout's reuse of the last stage's
 * values, gen/tkh/shapes/normalization.lua): whole subtrees only, by structure, not by text. */
static void expressions_rewrite_a_subexpression(void **state)
{
#define REWRITE(map, sub)                                                                                  "local E = require 'tkh.expr'\n"                                                                      "local p = function(t) return E.parse(t, function(w) return w == 'ACC' end) end\n"                   "local s = p('" sub "')\n"                                                                            "return E.c(p('" map "'), function(n) if E.same(n, s) then return 'v' end end)"
    expect_text(*state, REWRITE("exp(x - m) * r", "exp(x-m)"), "(v * r)");
    expect_text(*state, REWRITE("-(ACC)exp(x - m) / (1 + exp(x - m))", "exp(x - m)"), "((-((ACC)v)) / (1 + v))");
    expect_text(*state, REWRITE("a + b * c", "a + b"), "(a + (b * c))"); /* not a subtree */
    expect_text(*state, REWRITE("exp(m - x) + x ? y : 2.5f", "exp(x - m)"), "((exp((m - x)) + x) ? y : 2.5f)");
#undef REWRITE
}

static void expressions_reject_what_no_bound_follows(void **state)
{
    expect_error(*state, EXPR_ENV "return bound('m > 0 ? x : 0')",
        "the condition uses 'm', which is computed, not read");
    expect_error(*state, EXPR_ENV "return bound('sinh(x)')",
        "calls 'sinh', which has no error-bound rule (those with one: erf, exp, exp2");
    expect_error(*state, EXPR_ENV "return bound('x < 1')", "'<' gives a truth value");
    expect_error(*state, EXPR_ENV "return bound('exp(x, x)')", "'exp' takes 1 argument(s), got 2");
    expect_error(*state, EXPR_ENV "return bound('(x + 1')", "expected ')' at 'the end'");
    expect_error(*state, EXPR_ENV "return bound('x $ 1')", "unexpected '$'");
    expect_error(*state, EXPR_ENV "return bound('x 1')", "unexpected '1' after a whole expression");
}

#define MM_TYPED(type, fields) "ops([[\nmatmul { name = 'g', semantics = 's', types = { '" type "' }, " fields " }\n]])"
#define MM_OPS(fields) MM_TYPED("f32", fields)

/* A matrix product's extra inputs: columns, rows and addends with their extents and
 * defaults; projectable where the epilogue adds one of them to the sum; refusals. */
static void ops_products_declare_extra_inputs(void **state)
{
    expect_text(*state,
        KERNEL_OF(MM_OPS("inputs = 'T a, T b, column T bias = 0, row T s = 1, T c, scalar ACC beta', "
            "epilogue = 's * acc + bias + beta * c'"),
            "k.extras[1].extent .. k.extras[2].extent .. k.extras[3].extent .. ' ' .. tostring(k.extras[3].default) "
            ".. ' ' .. #k.inputs .. #k.scalars .. tostring(k.projectable)"),
        "nmmn nil 51false");
    expect_text(*state, KERNEL_OF(MM_OPS("inputs = 'T a, T b, T residual = 0', epilogue = '(residual + acc)'"),
        "tostring(k.projectable) .. ' ' .. k.extras[1].default"), "true 0");
    expect_error(*state, MM_OPS("inputs = 'T a, row T b'"), "the first two inputs are the operands a and b");
    expect_error(*state, MM_OPS("inputs = 'T a, T b, row T s = x'"), "the default of 's' must be a number");
    expect_error(*state, MM_TYPED("i8", "inputs = 'T a, T b, T c'"),
        "integer matrix products take no epilogue, extra inputs or scalars");
    expect_error(*state, SIG("inputs = 'T x, row T w', outputs = 'T y', types = { 'f32' }, compute = 'x'"),
        "only a matrix product's inputs may be rows");
}

/* A product's output type keeps the check's meaning: floats within a bound, integers exactly
 * modulo 2^bits of the accumulator. Wider or other float outputs are fine. */
static void ops_products_choose_an_output_type(void **state)
{
    expect_text(*state, KERNEL_OF(MM_TYPED("f16", "output = 'f32'"), "k.out_type.name .. k.acc.name"), "f32f32");
    expect_text(*state, KERNEL_OF(MM_TYPED("f32", "output = 'bf16'"), "k.out_type.name"), "bf16");
    expect_text(*state, KERNEL_OF(MM_TYPED("i8", "output = 'i64'"), "k.out_type.name .. k.acc.name"), "i64i32");
    expect_error(*state, MM_TYPED("f16", "output = 'i32'"),
        "output for f16: i32 is not a float type (a float product's output is f16, bf16, f32 or f64)");
    expect_error(*state, MM_TYPED("f32", "output = 'bool'"), "output for f32: bool is not a float type");
    expect_error(*state, MM_TYPED("i8", "output = 'f32'"), "output for i8: f32 is not an integer type");
    expect_error(*state, MM_TYPED("i8", "output = 'i8'"),
        "output for i8: i8 is narrower than the accumulator i32 (an integer product's output holds the sum "
        "modulo 2^32: an integer type of at least 32 bits)");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(template_inlines_and_loops), T(template_errors_name_the_template_line),
        T(template_skips_parentheses_in_strings), T(template_budgets_stop_runaway_templates),
        T(ops_budgets_stop_runaway_op_files), T(ops_accept_a_valid_op),
        T(ops_reject_unknown_fields), T(ops_reject_duplicates), T(ops_need_an_expression_per_type),
        T(ops_check_operands_against_arity), T(ops_reject_code_outside_one_expression),
        T(ops_filter_types), T(ops_declare_signatures), T(ops_reject_bad_signatures),
        T(expressions_carry_error_bounds), T(expressions_reject_what_no_bound_follows),
        T(expressions_rewrite_a_subexpression), T(ops_reductions_declare_an_identity_or_a_start),
        T(ops_compare_takes_an_absolute_floor), T(ops_products_declare_extra_inputs),
        T(ops_products_choose_an_output_type),
    };
    return cmocka_run_group_tests_name("generator", tests, NULL, NULL);
}
