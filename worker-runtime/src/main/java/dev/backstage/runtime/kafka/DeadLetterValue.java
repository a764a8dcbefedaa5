package dev.backstage.runtime.kafka;

/**
 * A dead-letter record value: the original job value plus {@code error}, {@code originalId}
 * ({@code <topic>:<partition>:<offset>} of the copy that failed), {@code deliveryCount} and
 * {@code deadLetteredAt} (docs/wire-format.md, the TS shape, a superset of Go's). A record that could not be read
 * as a job at all is kept as {@code rawValue} text instead of the job fields.
 *
 * @param job     null when the original value was not a readable job
 * @param rawValue the original value as text when {@code job} is null, else null
 */
public record DeadLetterValue(
        JobValue job, String rawValue, String error, String originalId, Integer deliveryCount, Long deadLetteredAtMs) {}
