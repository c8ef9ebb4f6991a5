@ for i = 1,
$(unclosed
