package dev.backstage.runtime.spi;

/**
 * The broker could not be read; {@code reason} is a short machine-friendly word (e.g. BrokerUnreachable), replaced by
 * the {@link ConnectionFailure} reason when the cause has one (a refused password, an untrusted certificate…).
 */
public final class BacklogUnavailableException extends RuntimeException {
    private final String reason;

    public BacklogUnavailableException(String reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = cause == null
                ? reason
                : ConnectionFailure.of(cause).map(ConnectionFailure::reason).orElse(reason);
    }

    public String reason() {
        return reason;
    }
}
