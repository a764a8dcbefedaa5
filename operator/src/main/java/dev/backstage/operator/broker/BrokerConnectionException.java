package dev.backstage.operator.broker;

/**
 * The operator could not get a working connection to a topology's broker. {@code reason} is a CamelCase word
 * for a condition ({@link #BROKER_UNREACHABLE}, {@link #PROVIDER_UNAVAILABLE}, or the topology reconciler's
 * {@code ReadyReason} for a Secret problem, e.g. {@code SecretNotFound}); the message is safe to show
 * (credentials scrubbed).
 */
public final class BrokerConnectionException extends Exception {
    public static final String BROKER_UNREACHABLE = "BrokerUnreachable";
    public static final String PROVIDER_UNAVAILABLE = "ProviderUnavailable";

    private final String reason;

    public BrokerConnectionException(String reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public String reason() {
        return reason;
    }
}
