@ coroutine.wrap(function() while true do end end)()
@ debug.sethook()
@ while true do end
