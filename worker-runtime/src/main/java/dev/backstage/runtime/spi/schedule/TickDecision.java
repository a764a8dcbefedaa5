package dev.backstage.runtime.spi.schedule;

import java.time.Instant;
import java.util.Optional;

/**
 * What to do about a schedule at one moment ({@link TickPolicy#decide}).
 *
 * @param fire        the tick to fire now, if any: the latest due one
 * @param missed      due ticks that will never be fired: older ones passed over for the latest, plus the latest
 *                    itself when it is past the starting deadline
 * @param tooLate     the latest due tick when it was not fired because it is past the starting deadline
 * @param handledThrough the newest tick this decision accounts for: ticks up to it are fired or missed
 * @param next        the next tick after now, if the expression fires again
 */
public record TickDecision(
        Optional<Instant> fire,
        long missed,
        Optional<Instant> tooLate,
        Instant handledThrough,
        Optional<Instant> next) {}
