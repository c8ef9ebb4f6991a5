#!/usr/bin/env python3
"""Fit the polynomial of the branch-free single-precision GELU kernel.

  gelu(a) = a*Phi(a),  Phi(-u) = 0.5*erfc(u/sqrt(2)) = 0.5*erfcx(u/sqrt(2))*exp(-u^2/2),  u = |a|.
  With h(u) = u*0.5*erfcx(u/sqrt(2)):  gelu(a) = a<0 ? -h*exp(-u^2/2) : a - h*exp(-u^2/2).

Kernel shape this fits (all float, fmaf; K, C are float constants; the code is gelu's in
ops/core.lua, and `tokitai-hip accuracy gelu f16,bf16,f32` measures it on a GPU):
  u = fminf(fabsf(a), 16);  s = u/(u+K) (rcp, mul, plus an fma-based correction);  t = s - C
  p(t) ~ G(t) = (u+K)*0.5*erfcx(u/sqrt(2))       (so h = s*p(t); G lies in [0.47, K/2])
  e0 = expf(P), P + PL = -u^2/2 exactly;  h = s*p*(1+PL);  gelu = fmaf(-h, e0, a<0 ? -0.0f : a)
G is flat and nearly independent of t, so rounding errors in t hardly matter.  With --brief the
script fits the originally proposed shape instead, t = (u-C)/(u+K), p(t) ~ 0.5*erfcx(u/sqrt(2)),
h = u*p(t) (kept for comparison: its rounding errors in t cost 4-7 ulps).

Method
  1. Remez exchange (discrete, on 2000 Chebyshev-spaced points of t) for the minimax RELATIVE
     error max|p/f - 1| of degree n; mpmath at 40 digits, monomial basis in t.
  2. Round the coefficients to float32 from the highest degree down, each to the float below or
     above, whichever is better once the lower, still free coefficients are re-fitted (Remez
     again) to absorb the rounding error; then a small local search (+-4 float ulps of one
     coefficient, +-2 of two adjacent ones) on the same points.
  3. Print C float literals in Horner order (highest degree first) and the relative error of
     the float-coefficient polynomial in exact arithmetic.

Run  (about 10-30 s each; needs mpmath, Debian: python3-mpmath)
  python3 fit_gelu.py [--brief] DEGREE K C [UMAX]    (fitted range u in [0, UMAX], default 14;
                                                      above 14.1 the result underflows to 0)
  python3 fit_gelu.py 10 2 0.5      variant A, f32 result (max error 3.2 ulps with glibc's expf,
                                    every f32 input; 4.23 measured on the H200, docs/accuracy.md)
  python3 fit_gelu.py 7 2.5 0.5     variant B, result rounded to f16 / bf16
  python3 fit_gelu.py 11 1.5 0.5    variant A with one more term (max error 2.9 ulp)
"""
import struct
import sys
from mpmath import mp, mpf, erfc, exp, sqrt, cos, pi, lu_solve, matrix

mp.dps = 40


def f32(x):
    """Round to the nearest float32."""
    return struct.unpack('<f', struct.pack('<f', float(x)))[0]


def f32_step(x, k):
    """The float32 k ulps away from the float32 x (x != 0)."""
    if k == 0:
        return x
    i = struct.unpack('<i', struct.pack('<f', x))[0]
    return struct.unpack('<f', struct.pack('<i', i + k))[0]


def target(t, K, C, brief):
    """The function p has to approximate, at the polynomial variable t."""
    if brief:
        u = (C + K * t) / (1 - t)
        scale = 1
    else:
        s = t + C
        u = K * s / (1 - s)
        scale = u + K
    x = u / sqrt(2)
    return scale * exp(x * x) * erfc(x) / 2


def horner(c, t):                                   # c[0] + c[1] t + ...
    r = 0 * t
    for ck in reversed(c):
        r = r * t + ck
    return r


def remez(ts, f, wt, m, iters=30):
    """Minimax of max|wt*(q - f)| over the grid ts, q of degree m. Returns (coefs, error)."""
    N = len(ts)
    idx = [int((N - 1) * (1 - cos(pi * i / (m + 1))) / 2) for i in range(m + 2)]
    best = None
    for _ in range(iters):
        M, b = matrix(m + 2, m + 2), matrix(m + 2, 1)
        for r, i in enumerate(idx):
            for k in range(m + 1):
                M[r, k] = ts[i] ** k
            M[r, m + 1] = (-1) ** r / wt[i]
            b[r] = f[i]
        sol = lu_solve(M, b)
        c = [sol[k] for k in range(m + 1)]
        err = [wt[i] * (horner(c, ts[i]) - f[i]) for i in range(N)]
        emax = max(abs(e) for e in err)
        if best is None or emax < best[1]:
            best = (c, emax)
        runs, start = [], 0                         # new reference: extremum of each sign run
        for i in range(1, N + 1):
            if i == N or (err[i] >= 0) != (err[start] >= 0):
                runs.append(max(range(start, i), key=lambda j: abs(err[j])))
                start = i
        while len(runs) > m + 2:                    # drop the weaker end
            runs.pop(0 if abs(err[runs[0]]) < abs(err[runs[-1]]) else -1)
        if len(runs) < m + 2 or runs == idx:
            break
        idx = runs
    return best


def fit(n, K, C, umax, brief, npts=2000):
    K, C = mpf(K), mpf(C)
    t0, t1 = (-C / K, (umax - C) / (umax + K)) if brief else (-C, umax / (umax + K) - C)
    ts = [t0 + (t1 - t0) * (1 - cos(pi * i / (npts - 1))) / 2 for i in range(npts)]
    fs = [target(t, K, C, brief) for t in ts]
    wt = [1 / f for f in fs]                        # relative error
    c, E = remez(ts, fs, wt, n)
    fixed = {}                                      # degree -> float32 coefficient
    for k in range(n, -1, -1):                      # the float below or above c[k]: whichever
        near = f32(c[k])                            # leaves the smaller error after re-fitting
        best = None
        for ck in (near, f32_step(near, 1 if near < c[k] else -1)):
            fixed[k] = ck
            rest = [f - sum(v * t ** j for j, v in fixed.items()) for f, t in zip(fs, ts)]
            if k > 0:
                c2, e = remez(ts, rest, wt, k - 1)
            else:
                c2, e = [], max(abs(r * w) for r, w in zip(rest, wt))
            if best is None or e < best[0]:
                best = (e, ck, c2)
        fixed[k], c = best[1], best[2]
    cf = [fixed[k] for k in range(n + 1)]
    td, fd = [float(t) for t in ts], [float(f) for f in fs]   # doubles suffice for ~1e-8

    def relerr(c):
        return max(abs(horner(c, t) / f - 1) for t, f in zip(td, fd))
    moves = [{k: d} for k in range(n + 1) for d in (1, -1, 2, -2, 3, -3, 4, -4)]
    moves += [{k: d, k + 1: e} for k in range(n) for d in (-2, -1, 1, 2) for e in (-2, -1, 1, 2)]
    Ef, better, sweeps = relerr(cf), True, 0
    while better and sweeps < 8:                    # greedy descent over the moves
        better, sweeps = False, sweeps + 1
        for mv in moves:
            c2 = [f32_step(v, mv.get(k, 0)) for k, v in enumerate(cf)]
            e2 = relerr(c2)
            if e2 < Ef:
                cf, Ef, better = c2, e2, True
    return cf, E, Ef


def cfloat(x):
    """C hex float literal of the float32 x, e.g. -0x1.8p+1f."""
    m, e = float(f32(x)).hex().split('p')
    return m.rstrip('0').rstrip('.') + 'p' + e + 'f'


def main():
    args = sys.argv[1:]
    brief = '--brief' in args
    args = [a for a in args if a != '--brief']
    n, K, C = int(args[0]), f32(args[1]), f32(args[2])
    umax = float(args[3]) if len(args) > 3 else 14.0
    cf, E, Ef = fit(n, K, C, umax, brief)
    shape = ('t = (u-C)/(u+K), p(t) ~ 0.5*erfcx(u/sqrt(2))' if brief else
             's = u/(u+K), t = s-C, p(t) ~ (u+K)*0.5*erfcx(u/sqrt(2))')
    print('/* fit_gelu.py %s: %s, u in [0,%g], K=%.9g, C=%.9g' % (' '.join(sys.argv[1:]), shape,
                                                                  umax, K, C))
    print('   minimax rel. error %.3g (%.2f * 2^-24); with float32 coefficients %.3g (%.2f * 2^-24) */'
          % (E, E * 2**24, Ef, Ef * 2**24))
    print('#define GELU_K %s' % cfloat(K))
    print('#define GELU_C %s' % cfloat(C))
    print('#define GELU_DEG %d' % n)
    print('static const float gelu_c[%d] = {   /* Horner order: c[%d] first */' % (n + 1, n))
    for k in range(n, -1, -1):
        print('    %-17s /* %.9g */' % (cfloat(cf[k]) + ',', cf[k]))
    print('};')


if __name__ == '__main__':
    main()
