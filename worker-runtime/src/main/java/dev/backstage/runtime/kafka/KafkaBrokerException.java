package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.BackstageException;

/** A Kafka call failed (broker unreachable, topic creation refused, produce not acknowledged…). */
public final class KafkaBrokerException extends BackstageException {
    public KafkaBrokerException(String message, Throwable cause) {
        super(message + ": " + describe(cause), cause);
    }

    static String describe(Throwable failure) {
        Throwable root = failure;
        while ((root instanceof java.util.concurrent.ExecutionException
                || root instanceof java.util.concurrent.CompletionException) && root.getCause() != null) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return message == null || message.isBlank() ? root.getClass().getSimpleName()
                : root.getClass().getSimpleName() + ": " + message;
    }
}
