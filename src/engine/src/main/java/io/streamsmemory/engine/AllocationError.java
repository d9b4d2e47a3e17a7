package io.streamsmemory.engine;

/**
 * Why a workload does not fit its memory.
 *
 * @param code    stable CamelCase identifier, usable as a condition reason
 * @param message what does not fit, with the numbers, and what to change
 */
public record AllocationError(String code, String message) {
}
