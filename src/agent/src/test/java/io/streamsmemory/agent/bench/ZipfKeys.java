package io.streamsmemory.agent.bench;

import java.util.Random;

/**
 * Key ranks 1..n drawn from a Zipf distribution with exponent {@code s} (rank k with probability proportional to
 * k^-s), for the benchmark's {@code zipf} shape: most real keyed streams are skewed, a few keys (customers, devices)
 * carrying much of the traffic. Rejection-inversion sampling (W. Hörmann and G. Derflinger, "Rejection-inversion to
 * generate variates from monotone discrete distributions", 1996), the method Apache Commons RNG uses: constant time
 * per draw whatever {@code n}, so 15 million keys need no table.
 */
final class ZipfKeys {
    private final long n;
    private final double exponent;
    private final Random random;
    private final double hIntegralX1;
    private final double hIntegralN;
    private final double squeeze;

    ZipfKeys(long n, double exponent, Random random) {
        if (n < 1 || exponent <= 0) {
            throw new IllegalArgumentException("a Zipf distribution needs n >= 1 and an exponent > 0");
        }
        this.n = n;
        this.exponent = exponent;
        this.random = random;
        this.hIntegralX1 = hIntegral(1.5) - 1;
        this.hIntegralN = hIntegral(n + 0.5);
        this.squeeze = 2 - hIntegralInverse(hIntegral(2.5) - h(2));
    }

    /** The next rank, 1 (the most frequent) to n. */
    long next() {
        while (true) {
            double u = hIntegralN + random.nextDouble() * (hIntegralX1 - hIntegralN);
            double x = hIntegralInverse(u);
            long k = Math.max(1, Math.min(n, (long) (x + 0.5)));
            // Accept at once inside the squeeze; otherwise when u falls under the histogram's bar for k.
            if (k - x <= squeeze || u >= hIntegral(k + 0.5) - h(k)) {
                return k;
            }
        }
    }

    /** The unnormalised density, x^-s. */
    private double h(double x) {
        return Math.exp(-exponent * Math.log(x));
    }

    /** An integral of h: (x^(1-s) - 1) / (1-s), computed stably near s = 1 (where it tends to log x). */
    private double hIntegral(double x) {
        double logX = Math.log(x);
        return expm1OverX((1 - exponent) * logX) * logX;
    }

    private double hIntegralInverse(double x) {
        double t = Math.max(-1, x * (1 - exponent));
        return Math.exp(log1pOverX(t) * x);
    }

    /** log(1 + x) / x, and its series near 0. */
    private static double log1pOverX(double x) {
        return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
    }

    /** (e^x - 1) / x, and its series near 0. */
    private static double expm1OverX(double x) {
        return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
    }
}
