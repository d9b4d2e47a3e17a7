package io.streamsmemory.engine;

/**
 * Why a workload does not fit its memory: the one floor that failed, what it needs and what it has.
 *
 * @param code           stable CamelCase identifier, usable as a condition reason
 * @param message        what does not fit, printing {@code neededBytes} and {@code availableBytes}, and what to change
 * @param neededBytes    what the failed floor needs; always more than {@code availableBytes}
 * @param availableBytes what the workload's memory gives it (never negative)
 */
public record AllocationError(String code, String message, long neededBytes, long availableBytes) {}
