package dev.backstage.runtime.spi;

/** The broker could not be read; {@code reason} is a short machine-friendly word (e.g. BrokerUnreachable). */
public final class BacklogUnavailableException extends RuntimeException {
    private final String reason;

    public BacklogUnavailableException(String reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public String reason() {
        return reason;
    }
}
