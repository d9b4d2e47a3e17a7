package io.streamsmemory.agent.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The zipf shape's keys follow the distribution they claim: each rank's share against the exact probability. */
class ZipfKeysTest {
    @Test
    void eachRankIsDrawnWithItsZipfProbability() {
        int n = 1_000;
        double exponent = 0.99;
        double normaliser = 0;
        for (int k = 1; k <= n; k++) {
            normaliser += Math.pow(k, -exponent);
        }
        ZipfKeys keys = new ZipfKeys(n, exponent, new Random(7));
        int draws = 400_000;
        long[] counts = new long[n + 1];
        for (int i = 0; i < draws; i++) {
            long rank = keys.next();
            assertThat(rank).isBetween(1L, (long) n);
            counts[(int) rank]++;
        }

        for (int rank : new int[] {1, 2, 10, 100}) {
            double expected = Math.pow(rank, -exponent) / normaliser;
            assertThat(counts[rank] / (double) draws)
                    .as("share of rank %d", rank)
                    .isCloseTo(expected, within(expected * 0.1));
        }
    }

    @Test
    void anExponentNearZeroIsAlmostUniform() {
        ZipfKeys keys = new ZipfKeys(10, 1e-9, new Random(3));
        long[] counts = new long[11];
        for (int i = 0; i < 100_000; i++) {
            counts[(int) keys.next()]++;
        }
        for (int rank = 1; rank <= 10; rank++) {
            assertThat(counts[rank]).isBetween(9_000L, 11_000L);
        }
    }
}
