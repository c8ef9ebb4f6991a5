/* $(name) */
@ for i = 1, 2 do
int x$(i) = $(i * 2);
@ end
