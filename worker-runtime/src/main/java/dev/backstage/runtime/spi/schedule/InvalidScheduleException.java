package dev.backstage.runtime.spi.schedule;

/** A schedule that cannot run as written; the message is one line and says what to change. */
public final class InvalidScheduleException extends IllegalArgumentException {
    public InvalidScheduleException(String message) {
        super(message);
    }
}
