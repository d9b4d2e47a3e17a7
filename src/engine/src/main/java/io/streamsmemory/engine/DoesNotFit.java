package io.streamsmemory.engine;

/**
 * A floor that does not hold: {@code neededBytes > availableBytes}, both printed in the message. Thrown by
 * {@link Sizing} at the first floor that fails; the caller either reports it ({@link AllocationEngine#allocate}) or
 * takes it as "does not fit" (the minimum-memory search).
 */
final class DoesNotFit extends Exception {
    final String code;
    final String remedy;
    final long neededBytes;
    final long availableBytes;

    /**
     * @param detail a format of {@code args} followed by the needed and the available size, as
     *               {@link AllocationEngine#shown} prints them (two {@code %s}, last unless the format numbers its
     *               arguments)
     */
    DoesNotFit(String code, String detail, String remedy, long needed, long available, Object... args) {
        // No stack trace: not fitting is an answer, not a bug, and the minimum-memory search meets it a few dozen
        // times per allocation.
        super(String.format(detail, withShown(args, needed, available)), null, false, false);
        this.code = code;
        this.remedy = remedy;
        this.neededBytes = needed;
        this.availableBytes = available;
    }

    private static Object[] withShown(Object[] args, long needed, long available) {
        Object[] all = java.util.Arrays.copyOf(args, args.length + 2);
        String[] shown = AllocationEngine.shown(needed, available);
        all[args.length] = shown[0];
        all[args.length + 1] = shown[1];
        return all;
    }

    /** What does not fit, without the remedy. */
    String detail() {
        return getMessage();
    }
}
