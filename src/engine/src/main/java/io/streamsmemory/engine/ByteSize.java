package io.streamsmemory.engine;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte units, Kubernetes memory quantities ({@code 512Mi}, {@code 2Gi}, {@code 1G}) and human-readable sizes. */
public final class ByteSize {
    public static final long KiB = 1L << 10;
    public static final long MiB = 1L << 20;
    public static final long GiB = 1L << 30;
    public static final long TiB = 1L << 40;

    // The Kubernetes quantity grammar restricted to what makes sense for memory: no milli units.
    private static final Pattern QUANTITY =
            Pattern.compile("^([0-9]+(?:\\.[0-9]+)?)(?:(Ki|Mi|Gi|Ti|Pi|Ei|k|K|M|G|T|P|E)|[eE]([0-9]+))?$");

    /** Longer than any memory quantity a person writes (2^63 bytes is 19 digits). */
    static final int MAX_QUANTITY_CHARS = 64;

    private ByteSize() {}

    /**
     * Parses a Kubernetes memory quantity into bytes.
     *
     * @throws IllegalArgumentException naming the input when it is not a whole, positive number of bytes
     */
    public static long parse(String quantity) {
        if (quantity == null) {
            throw new IllegalArgumentException("memory quantity is missing");
        }
        if (quantity.length() > MAX_QUANTITY_CHARS) {
            // A 100,000-digit quantity took over a second in BigDecimal arithmetic before failing as too large (found
            // by fuzzing, see PolicyQuantitiesFuzzTest), and would have been quoted whole in the error.
            throw new IllegalArgumentException("'" + quantity.substring(0, MAX_QUANTITY_CHARS) + "...' is not a memory "
                    + "quantity: longer than " + MAX_QUANTITY_CHARS + " characters");
        }
        Matcher matcher = QUANTITY.matcher(quantity.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException(
                    "'" + quantity + "' is not a memory quantity (examples: 512Mi, 2Gi, 1G, 1500000000)");
        }
        BigDecimal number = new BigDecimal(matcher.group(1));
        BigDecimal multiplier;
        if (matcher.group(3) != null) {
            // 10^exponent was computed in full before the range check: "1e99999999" ran for minutes, "1e999999999"
            // threw ArithmeticException, not the documented IllegalArgumentException (found by fuzzing, see
            // PolicyQuantitiesFuzzTest). A non-zero number whose integer digits plus the exponent exceed a long's 19
            // cannot fit, whatever its digits, so it is refused before any arithmetic.
            int exponent = exponent(matcher.group(3), quantity);
            if (number.signum() != 0 && number.precision() - number.scale() + (long) exponent > 20) {
                throw new IllegalArgumentException("'" + quantity + "' is too large");
            }
            multiplier = BigDecimal.TEN.pow(number.signum() == 0 ? 0 : exponent);
        } else {
            multiplier = BigDecimal.valueOf(suffixMultiplier(matcher.group(2)));
        }
        BigDecimal bytes = number.multiply(multiplier);
        try {
            // Kubernetes rounds fractional byte quantities up; do the same.
            return bytes.setScale(0, RoundingMode.CEILING).longValueExact();
        } catch (ArithmeticException tooLarge) {
            throw new IllegalArgumentException("'" + quantity + "' is too large", tooLarge);
        }
    }

    private static int exponent(String digits, String quantity) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException tooLong) {
            throw new IllegalArgumentException("'" + quantity + "' is too large", tooLong);
        }
    }

    private static long suffixMultiplier(String suffix) {
        if (suffix == null) {
            return 1;
        }
        return switch (suffix) {
            case "Ki" -> KiB;
            case "Mi" -> MiB;
            case "Gi" -> GiB;
            case "Ti" -> TiB;
            case "Pi" -> TiB << 10;
            case "Ei" -> TiB << 20;
            case "k", "K" -> 1_000L;
            case "M" -> 1_000_000L;
            case "G" -> 1_000_000_000L;
            case "T" -> 1_000_000_000_000L;
            case "P" -> 1_000_000_000_000_000L;
            default -> 1_000_000_000_000_000_000L; // "E"
        };
    }

    /** Renders bytes for people: {@code 1.5 GiB}, {@code 320 MiB}, {@code 16 KiB}, {@code 12 B}. */
    public static String format(long bytes) {
        long abs = Math.abs(bytes);
        if (abs >= GiB) {
            return trim(bytes / (double) GiB) + " GiB";
        }
        if (abs >= MiB) {
            return trim(bytes / (double) MiB) + " MiB";
        }
        if (abs >= KiB) {
            return trim(bytes / (double) KiB) + " KiB";
        }
        return bytes + " B";
    }

    private static String trim(double value) {
        String text = String.format(Locale.ROOT, "%.2f", value);
        return text.replaceAll("\\.?0+$", "");
    }

    /**
     * A JVM size flag's value as the engine writes it ({@link AllocationEngine#jvmSize}: "97m", "100504k"), in bytes;
     * null when it is not of that form.
     */
    public static Long parseJvmSize(String value) {
        if (value == null || value.length() < 2 || value.length() > 12) {
            return null;
        }
        long unit = value.endsWith("m") ? MiB : value.endsWith("k") ? KiB : 0;
        String digits = value.substring(0, value.length() - 1);
        return unit == 0 || !digits.chars().allMatch(Character::isDigit) ? null : Long.parseLong(digits) * unit;
    }

    static long ceilDiv(long value, long divisor) {
        return -Math.floorDiv(-value, divisor);
    }

    static long clamp(long value, long min, long max) {
        return Math.max(min, Math.min(max, value));
    }
}
