@ local s = ("x"):rep(2^40)
