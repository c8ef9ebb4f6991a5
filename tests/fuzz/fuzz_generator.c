/* libFuzzer target over the generator's op-file loader and template engine (gen/tkh):
 * each input is loaded as an op file and compiled and rendered as a template, in a Lua
 * state whose memory is capped (an allocation past the cap fails, as malloc would). The
 * generator must answer anything with an error that names the file and line (or Lua's
 * out-of-memory error), never crash, hang or fail inside itself: its sandbox stops a chunk
 * that runs too long or grows too much (gen/tkh/sandbox.lua). Build: CMake with clang
 * (tests/CMakeLists.txt); run: fuzz_generator WORK_DIR SEED_DIRS... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

/* Above the sandbox's budget (set below), which should stop a chunk first. */
#define CAP ((size_t)512 << 20)

static size_t used;
static char path[64];

/* Not instrumented: how often Lua allocates depends on its string-hash seed (time and
 * addresses), and those counts must not steer libFuzzer, or a fixed seed would not give
 * the same run twice. */
__attribute__((no_sanitize("coverage")))
static void *capped(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    if (ptr == NULL)
        osize = 0;
    if (nsize == 0) {
        used -= osize;
        free(ptr);
        return NULL;
    }
    if (nsize > osize && used + (nsize - osize) > CAP)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p != NULL)
        used += nsize - osize;
    return p;
}

/* Runs in Lua with FUZZ_PATH, FUZZ_NAME and FUZZ_TEXT set; raises (and so aborts the
 * run) only when the generator misbehaves. */
static const char *const script =
    "local ops, template = require 'tkh.ops', require 'tkh.template'\n"
    /* Smaller budgets than the generator's, so that the many inputs that loop or grow
     * cost milliseconds each: the same code stops them. */
    "local sandbox = require 'tkh.sandbox'\n"
    "sandbox.INSTRUCTIONS, sandbox.MEMORY_MIB = 10000000, 64\n"
    "local function names(m, file)\n" /* 'file:LINE:' somewhere in m */
    "  local _, e = m:find(file, 1, true)\n"
    "  return e ~= nil and m:find('^:%d+:', e + 1) ~= nil\n"
    "end\n"
    "local function acceptable(e)\n"
    "  local m = tostring(e)\n"
    "  return m == 'not enough memory' or names(m, FUZZ_NAME) or names(m, 'fuzz.tpl')\n"
    "end\n"
    "local ok, e = pcall(ops.load, { FUZZ_PATH })\n"
    "if not ok and not acceptable(e) then error('op loader: error without file:line: ' .. tostring(e), 0) end\n"
    "local ok2, f = pcall(template.compile, FUZZ_TEXT, 'fuzz.tpl')\n"
    "if ok2 then\n"
    "  local ok3, e3 = pcall(f, {})\n"
    "  if not ok3 and not acceptable(e3) then\n"
    "    error('template: error without file:line: ' .. tostring(e3), 0)\n"
    "  end\n"
    "elseif not acceptable(f) then\n"
    "  error('template: error without file:line: ' .. tostring(f), 0)\n"
    "end\n";

static void remove_input(void)
{
    unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/tkh-fuzz-%ld.lua", tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp",
        (long)getpid());
    atexit(remove_input);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    used = 0;
    lua_State *L = lua_newstate(capped, NULL);
    if (L == NULL)
        abort();
    luaL_openlibs(L);
    lua_getglobal(L, "package");
    lua_pushstring(L, TKH_GEN_DIR "/?.lua");
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
    lua_pushstring(L, path);
    lua_setglobal(L, "FUZZ_PATH");
    lua_pushstring(L, strrchr(path, '/') + 1); /* "tkh-fuzz-<pid>.lua" */
    lua_setglobal(L, "FUZZ_NAME");
    lua_pushlstring(L, (const char *)data, size);
    lua_setglobal(L, "FUZZ_TEXT");
    if (luaL_dostring(L, script) != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        if (msg == NULL || strcmp(msg, "not enough memory") != 0) {
            fprintf(stderr, "fuzz_generator: %s\n", msg ? msg : "(no message)");
            abort();
        }
    }
    lua_close(L);
    return 0;
}
