-- Test fixture: not Lua.
elementwise {
  name = "add"
  arity = 2,
}
