package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.BackstageException;

/** The broker cannot be reached right now (connection lost and recovering, or never reached). */
public final class BrokerUnavailableException extends BackstageException {
    public BrokerUnavailableException(String message) {
        super(message);
    }

    public BrokerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
