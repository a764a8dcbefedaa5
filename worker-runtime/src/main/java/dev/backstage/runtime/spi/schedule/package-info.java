/**
 * The schedule core shared by the runtime's {@code Scheduler} and the operator's schedule firing: a cron
 * {@link dev.backstage.runtime.spi.schedule.Schedule}, its expression and ticks, the per-tick dedupe key and the
 * missed-tick policy, so both sides fire the same ticks. Part of the {@code spi} layer (it imports {@code spi} only;
 * {@code core} and the operator import it); the one {@code spi} package that uses Jackson, in private code that
 * validates a schedule's {@code args} JSON (docs/architecture.md).
 */
package dev.backstage.runtime.spi.schedule;
