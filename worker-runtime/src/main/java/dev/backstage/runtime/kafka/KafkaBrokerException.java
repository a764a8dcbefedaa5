package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.BackstageException;
import dev.backstage.runtime.spi.ConnectionFailure;

/** A Kafka call failed (broker unreachable, topic creation refused, produce not acknowledged…). */
public final class KafkaBrokerException extends BackstageException {
    public KafkaBrokerException(String message, Throwable cause) {
        super(ConnectionFailure.label(cause) + message + ": " + plain(cause), cause);
    }

    /** The failure in one line, headed by its {@link ConnectionFailure} reason when it has one. */
    static String describe(Throwable failure) {
        return ConnectionFailure.label(failure) + plain(failure);
    }

    private static String plain(Throwable failure) {
        Throwable root = failure;
        while ((root instanceof java.util.concurrent.ExecutionException
                        || root instanceof java.util.concurrent.CompletionException)
                && root.getCause() != null) {
            root = root.getCause();
        }
        String message = root.getMessage();
        String text = message == null || message.isBlank()
                ? root.getClass().getSimpleName()
                : root.getClass().getSimpleName() + ": " + message;
        // A TLS failure's words are in the handshake exception under kafka-clients' "SSL handshake failed".
        Throwable under = root.getCause();
        while (under != null && under.getCause() != null && under.getCause() != under) {
            under = under.getCause();
        }
        return under == null || under.getMessage() == null || text.contains(under.getMessage())
                ? text
                : text + " (" + under.getMessage() + ")";
    }
}
